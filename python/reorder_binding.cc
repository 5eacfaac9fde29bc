// reorder(): a NumPy array to another layout and element type (tessera::reorder).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tessera/core/data_type.h"
#include "tessera/core/memory_desc.h"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/primitives/reorder/reorder.h"
#include "tessera/python/attributes.h"
#include "tessera/python/bindings.h"
#include "tessera/python/numpy_types.h"
#include "tessera/python/views.h"

namespace tessera::python {
namespace {

std::string tag_argument(py::handle layout, const char* name) {
  if (!py::isinstance<py::str>(layout)) {
    throw py::value_error(std::string(name) + " must be a format tag (str) or a MemoryDesc");
  }
  return layout.cast<std::string>();
}

// The source: a MemoryDesc's buffer, a blocked tag's buffer (dims given) or a plain array.
tensor_view source_of(const py::array& src, py::handle layout, py::handle dims,
                      py::handle src_dtype) {
  if (const memory_desc* md = desc_argument(layout)) {
    if (!dims.is_none() || !src_dtype.is_none()) {
      throw py::value_error("src_layout is a MemoryDesc: it holds the dims and type, so dims and "
                            "src_dtype must not be given");
    }
    return buffer_view(src, *md, /*writable=*/false, "src");
  }
  const std::string tag = tag_argument(layout, "src_layout");
  const data_type dt = element_type_of(src, src_dtype);
  if (dims.is_none()) return input_view(src, dt, plain_order(tag, static_cast<int>(src.ndim())));
  const std::vector<dim_t> logical = dims.cast<std::vector<dim_t>>();
  return buffer_view(src, value_or_throw(make_memory_desc(logical, dt, tag)), false, "src");
}

// The destination: `out` when given, else a fresh array (a plain tag's shape in its dim order, a
// blocked tag's or a MemoryDesc's buffer).
tensor_view destination_of(py::handle layout, py::handle dst_dtype, const memory_desc& src,
                           py::handle out) {
  if (const memory_desc* md = desc_argument(layout)) {
    if (!dst_dtype.is_none() && resolve_data_type(dst_dtype) != md->dt()) {
      throw py::value_error("dst_layout is a MemoryDesc of another type than dst_dtype");
    }
    if (out.is_none()) return new_buffer(*md);
    return buffer_view(out_argument(out), *md, /*writable=*/true, "out");
  }
  const std::string tag = tag_argument(layout, "dst_layout");
  const data_type dt = dst_dtype.is_none() ? src.dt() : resolve_data_type(dst_dtype);
  if (is_blocked_tag(tag, src.rank())) {
    const memory_desc md = value_or_throw(make_memory_desc(src.dims(), dt, tag));
    if (out.is_none()) return new_buffer(md);
    return buffer_view(out_argument(out), md, true, "out");
  }
  const std::vector<int> order = plain_order(tag, src.rank());
  if (out.is_none()) return new_output(dt, src.dims(), order);
  return output_view(out_argument(out), dt, order, src.dims(), "out");
}

py::array reorder_array(const py::array& src, py::handle src_layout, py::handle dst_layout,
                        py::handle dst_dtype, py::handle dims, py::handle src_dtype,
                        py::handle out, const std::string& impl, const py::kwargs& kwargs) {
  const attribute_args attrs = parse_attributes(kwargs);
  if (attrs.attr.sum && out.is_none()) {
    throw py::value_error("sum_beta adds to the destination's values: give them with out=");
  }
  const tensor_view s = source_of(src, src_layout, dims, src_dtype);
  const tensor_view d = destination_of(dst_layout, dst_dtype, s.desc, out);
  const reorder r = value_or_throw(
      impl.empty() ? reorder::create(s.desc, d.desc, attrs.attr)
                   : reorder::create(s.desc, d.desc, attrs.attr, reorder_options{impl}));
  exec_args args{{arg_from, {s.desc, s.data}}, {arg_to, {d.desc, d.data}}};
  attrs.add_to(args);
  absl::Status status;
  {
    py::gil_scoped_release unlocked;
    status = r.execute(args);
  }
  throw_if_error(status);
  return d.array;
}

constexpr const char* kReorderDoc = R"doc(
reorder(src, src_layout, dst_layout, dst_dtype=None, *, dims=None, src_dtype=None, out=None,
        impl="", **attributes) -> numpy.ndarray

Copies `src` into the layout `dst_layout` with type `dst_dtype` (default: src's type), converting
with oneDNN's rounding (to nearest even) and saturation. Returns `out`, or a new array.

Layouts are format tags ("nchw", "nhwc", "ba", "nChw16c") or MemoryDesc objects.
- A plain tag names the array's axes in memory order: an "nhwc" array has shape (N, H, W, C)
  and the logical dims N x C x H x W. src is read in place when its strides are positive
  multiples of its item size, else copied first.
- A blocked tag or a MemoryDesc: the array is the layout's buffer, C-contiguous, of the padded
  size in items; a blocked src tag needs the logical dims (dims=...).
bf16 is uint16 (the bit patterns); f8_e5m2 / f8_e4m3 are uint8 named with src_dtype / dst_dtype.
Attributes: src_scales, dst_scales, src_zero_points, dst_zero_points (with *_mask),
output_scales (with output_scales_mask), sum_beta and sum_zero_point (needs out=).
impl: only implementations whose name contains this text ("ref", "avx2:").
Errors raise ValueError with Tessera's message; `out` is then untouched.
)doc";

}  // namespace

void bind_reorder(py::module_& m) {
  m.def("reorder", &reorder_array, kReorderDoc, py::arg("src"), py::arg("src_layout"),
        py::arg("dst_layout"), py::arg("dst_dtype") = py::none(), py::kw_only(),
        py::arg("dims") = py::none(), py::arg("src_dtype") = py::none(),
        py::arg("out") = py::none(), py::arg("impl") = "");
}

}  // namespace tessera::python
