// The attributes of a primitive given as Python keyword arguments.
//
//   tessera.reorder(x, "nchw", "nhwc", "s8", src_scales=0.5, dst_zero_points=3)
//   tessera.reorder(x, "ab", "ab", "u8", dst_scales=np.array([...]), dst_scales_mask=2)
//
// Keywords: src_scales, dst_scales (float32 values), src_zero_points, dst_zero_points (int32
// values), each with an optional <name>_mask (default 0: one common value; bit d set: one value
// per index of logical dim d, row-major); output_scales (values at creation) with
// output_scales_mask; sum_beta and sum_zero_point (the sum post-op). The primitive's create()
// decides which it takes.
#ifndef TESSERA_PYTHON_ATTRIBUTES_H_
#define TESSERA_PYTHON_ATTRIBUTES_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <utility>
#include <vector>

#include "tessera/core/memory_desc.h"
#include "tessera/primitives/common/arg.h"
#include "tessera/primitives/common/attr.h"

namespace tessera::python {

namespace py = pybind11;

struct attribute_args {
  primitive_attr attr;
  // The values given at execution: the argument, its 1-D descriptor and its contiguous array.
  struct value {
    arg which;
    memory_desc desc;
    py::array array;
  };
  std::vector<value> values;

  // Sets every value argument in `args` (the arrays must outlive the execution).
  void add_to(exec_args& args) const;
};

// Parses the keywords above; ValueError naming an unknown keyword, a mask that is not an int, or
// zero points that are not integers.
attribute_args parse_attributes(const py::kwargs& kwargs);

}  // namespace tessera::python

#endif  // TESSERA_PYTHON_ATTRIBUTES_H_
