// NumPy arrays seen as Tessera tensors: descriptors over their buffers, read and written in place.
//
//   // A float32 array of shape (N, H, W, C) read in place as the logical N x C x H x W "nhwc":
//   std::vector<int> order = plain_order("nhwc", 4);           // {0, 2, 3, 1}
//   tensor_view src = input_view(array, data_type::f32, order);  // src.desc.dims() == {N, C, H, W}
//   tensor_view dst = new_output(data_type::f32, src.desc.dims(), plain_order("nchw", 4));
//
// Two forms. A plain layout is an array whose axis k is logical dim order[k] (identity for the
// softmax): its descriptor takes the array's shape and strides, so any array whose strides are
// positive multiples of its item size is read in place. A descriptor's buffer (any layout,
// blocked ones included) is a C-contiguous array of exactly the descriptor's size in items.
#ifndef TESSERA_PYTHON_VIEWS_H_
#define TESSERA_PYTHON_VIEWS_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "tessera/core/memory_desc.h"

namespace tessera::python {

namespace py = pybind11;

// A tensor over a NumPy buffer. `array` keeps the buffer alive: the caller's array, or (inputs
// only) its C-contiguous copy.
struct tensor_view {
  memory_desc desc;
  void* data = nullptr;
  py::array array;
};

// ValueError carrying the status's message unless it is OK.
void throw_if_error(const absl::Status& status);
template <class T>
T value_or_throw(absl::StatusOr<T> value) {
  throw_if_error(value.status());
  return *std::move(value);
}

// The dim order of a plain tag of `rank` dims: order[k] is the logical dim of memory position k,
// outermost first ("nhwc" -> {0, 2, 3, 1}). ValueError for a bad tag or a blocked one (whose
// array is a buffer and needs the logical dims).
std::vector<int> plain_order(const std::string& tag, int rank);
// Whether `tag` (of `rank` dims) has inner blocks. ValueError for a bad tag.
bool is_blocked_tag(const std::string& tag, int rank);

// `array` read in place, axis k holding logical dim order[k]. An array whose strides no
// descriptor can hold (negative, not a multiple of the item size, or zero on an axis longer than
// 1) is copied to C order first.
tensor_view input_view(const py::array& array, data_type dt, absl::Span<const int> order);
// The `out=` argument as an array; ValueError when it is not a numpy.ndarray (a list would be
// converted to a new array, and the result lost).
py::array out_argument(py::handle out);
// `out` written in place, axis k holding logical dim order[k]; its shape must be `dims` in that
// order and its dtype dt's storage. ValueError (naming `what`) when it is read-only or its
// strides cannot be written in place.
tensor_view output_view(const py::array& out, data_type dt, absl::Span<const int> order,
                        absl::Span<const dim_t> dims, const char* what);
// A fresh C-contiguous array of shape dims[order[0]], dims[order[1]], ...
tensor_view new_output(data_type dt, absl::Span<const dim_t> dims, absl::Span<const int> order);

// `buffer` as the memory of `md`: C-contiguous, md's storage dtype, exactly md's size in items;
// writable when `writable`. ValueError naming `what` otherwise.
tensor_view buffer_view(const py::array& buffer, const memory_desc& md, bool writable,
                        const char* what);
// A fresh buffer for `md`: shaped as md's dims when md is row-major dense, else 1-D.
tensor_view new_buffer(const memory_desc& md);

}  // namespace tessera::python

#endif  // TESSERA_PYTHON_VIEWS_H_
