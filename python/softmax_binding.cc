// softmax(), logsoftmax() and their backward functions over NumPy arrays (tessera::softmax_*).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <numeric>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "tessera/core/data_type.h"
#include "tessera/core/memory_desc.h"
#include "tessera/primitives/softmax/softmax.h"
#include "tessera/python/attributes.h"
#include "tessera/python/bindings.h"
#include "tessera/python/numpy_types.h"
#include "tessera/python/views.h"

namespace tessera::python {
namespace {

// NumPy's negative axes; an axis out of range is left for create() to name.
int normalised_axis(int axis, int rank) { return axis < 0 && axis >= -rank ? axis + rank : axis; }

std::vector<int> identity_order(int rank) {
  std::vector<int> order(rank);
  std::iota(order.begin(), order.end(), 0);
  return order;
}

// A tensor argument: the buffer of `desc` when it is a MemoryDesc, else the array read in place.
tensor_view input_of(const py::array& array, py::handle desc, py::handle dtype, const char* what) {
  if (const memory_desc* md = desc_argument(desc)) {
    if (!dtype.is_none()) {
      throw py::value_error("a MemoryDesc holds the type: give no dtype beside it");
    }
    return buffer_view(array, *md, /*writable=*/false, what);
  }
  if (!desc.is_none()) throw py::value_error(std::string(what) + "'s desc must be a MemoryDesc");
  return input_view(array, element_type_of(array, dtype),
                    identity_order(static_cast<int>(array.ndim())));
}

// The output: `out` or a fresh array, of type `dtype` (default: like_type). Beside a MemoryDesc
// input it is the buffer of `resolved` (the primitive's choice for an `any` output).
tensor_view output_of(py::handle out, data_type dt, const memory_desc& like, bool as_buffer) {
  if (as_buffer) {
    if (out.is_none()) return new_buffer(like);
    return buffer_view(out_argument(out), like, /*writable=*/true, "out");
  }
  const std::vector<int> order = identity_order(like.rank());
  if (out.is_none()) return new_output(dt, like.dims(), order);
  return output_view(out_argument(out), dt, order, like.dims(), "out");
}

void execute(const auto& primitive, exec_args& args, const attribute_args& attrs) {
  attrs.add_to(args);
  absl::Status status;
  {
    py::gil_scoped_release unlocked;
    status = primitive.execute(args);
  }
  throw_if_error(status);
}

py::array forward(softmax_alg alg, const py::array& src, int axis, py::handle dst_dtype,
                  py::handle src_dtype, py::handle out, py::handle desc,
                  const std::string& impl, const py::kwargs& kwargs) {
  const attribute_args attrs = parse_attributes(kwargs);
  const tensor_view s = input_of(src, desc, src_dtype, "src");
  const data_type dt = dst_dtype.is_none() ? s.desc.dt() : resolve_data_type(dst_dtype);
  const bool as_buffer = desc_argument(desc) != nullptr;
  axis = normalised_axis(axis, s.desc.rank());
  const memory_desc dst_any = value_or_throw(memory_desc::any(s.desc.dims(), dt));
  tensor_view d;
  if (as_buffer) {
    const softmax_forward f = value_or_throw(
        softmax_forward::create(alg, s.desc, dst_any, axis, attrs.attr, {impl}));
    d = output_of(out, dt, f.dst_desc(), true);
  } else {
    d = output_of(out, dt, dst_any, false);
  }
  const softmax_forward f =
      value_or_throw(softmax_forward::create(alg, s.desc, d.desc, axis, attrs.attr, {impl}));
  exec_args args{{arg::src, {s.desc, s.data}}, {arg::dst, {d.desc, d.data}}};
  execute(f, args, attrs);
  return d.array;
}

py::array backward(softmax_alg alg, const py::array& diff_dst, const py::array& dst, int axis,
                   py::handle diff_src_dtype, py::handle out, py::handle desc,
                   py::handle dst_desc, const std::string& impl) {
  const tensor_view dd = input_of(diff_dst, desc, py::none(), "diff_dst");
  const tensor_view y = input_of(dst, dst_desc.is_none() ? desc : dst_desc, py::none(), "dst");
  const data_type dt = diff_src_dtype.is_none() ? dd.desc.dt() : resolve_data_type(diff_src_dtype);
  const bool as_buffer = desc_argument(desc) != nullptr;
  axis = normalised_axis(axis, dd.desc.rank());
  const memory_desc any = value_or_throw(memory_desc::any(dd.desc.dims(), dt));
  tensor_view ds;
  if (as_buffer) {
    const softmax_backward b = value_or_throw(
        softmax_backward::create(alg, any, dd.desc, y.desc, axis, {}, {impl}));
    ds = output_of(out, dt, b.diff_src_desc(), true);
  } else {
    ds = output_of(out, dt, any, false);
  }
  const softmax_backward b = value_or_throw(
      softmax_backward::create(alg, ds.desc, dd.desc, y.desc, axis, {}, {impl}));
  exec_args args{{arg::dst, {y.desc, y.data}},
                 {arg::diff_dst, {dd.desc, dd.data}},
                 {arg::diff_src, {ds.desc, ds.data}}};
  execute(b, args, attribute_args{});
  return ds.array;
}

constexpr const char* kForwardDoc = R"doc(
{name}(src, axis=-1, *, dst_dtype=None, src_dtype=None, out=None, desc=None, impl="",
       **attributes) -> numpy.ndarray

{formula} along `axis`; every other index is an independent row. src is read in place when its
strides are positive multiples of its item size; the result is `out` (may be src itself) or a
new C-contiguous array of type dst_dtype (default: src's). Types: f32, f64, f16, bf16 (uint16),
s8, u8; int8 results take src_scales / dst_scales (one value each). desc: a MemoryDesc whose buffer
src is (any layout, blocked included); the result is then a buffer in the same layout.
Errors raise ValueError with Tessera's message.
)doc";

constexpr const char* kBackwardDoc = R"doc(
{name}(diff_dst, dst, axis=-1, *, diff_src_dtype=None, out=None, desc=None, dst_desc=None,
       impl="") -> numpy.ndarray

The gradient diff_src of {forward} from dst (the forward's result) and diff_dst. Types: f32, f64,
f16, bf16 (uint16). desc / dst_desc: MemoryDesc objects whose buffers diff_dst / dst are
(dst_desc defaults to desc). out may be diff_dst itself.
)doc";

std::string doc_of(std::string text, const std::string& name, const std::string& detail,
                   const char* key) {
  for (const auto& [k, v] : {std::pair<std::string, std::string>{"{name}", name}, {key, detail}}) {
    for (size_t at = text.find(k); at != std::string::npos; at = text.find(k)) {
      text.replace(at, k.size(), v);
    }
  }
  return text;
}

}  // namespace

void bind_softmax(py::module_& m) {
  const std::string softmax_doc = doc_of(
      kForwardDoc, "softmax", "exp(x - max) / sum(exp(x - max))", "{formula}");
  const std::string logsoftmax_doc = doc_of(
      kForwardDoc, "logsoftmax", "(x - max) - log(sum(exp(x - max)))", "{formula}");
  m.def(
      "softmax",
      [](const py::array& src, int axis, py::handle dst_dtype, py::handle src_dtype,
         py::handle out, py::handle desc, bool inf_as_zero, const std::string& impl,
         const py::kwargs& kwargs) {
        return forward(inf_as_zero ? softmax_alg::softmax_inf_as_zero : softmax_alg::softmax,
                       src, axis, dst_dtype, src_dtype, out, desc, impl, kwargs);
      },
      (softmax_doc + "inf_as_zero: a row that is all -inf gives 0 (else NaN).\n").c_str(),
      py::arg("src"), py::arg("axis") = -1, py::kw_only(), py::arg("dst_dtype") = py::none(),
      py::arg("src_dtype") = py::none(), py::arg("out") = py::none(),
      py::arg("desc") = py::none(), py::arg("inf_as_zero") = false, py::arg("impl") = "");
  m.def(
      "logsoftmax",
      [](const py::array& src, int axis, py::handle dst_dtype, py::handle src_dtype,
         py::handle out, py::handle desc, const std::string& impl, const py::kwargs& kwargs) {
        return forward(softmax_alg::logsoftmax, src, axis, dst_dtype, src_dtype, out, desc, impl,
                       kwargs);
      },
      logsoftmax_doc.c_str(), py::arg("src"), py::arg("axis") = -1, py::kw_only(),
      py::arg("dst_dtype") = py::none(), py::arg("src_dtype") = py::none(),
      py::arg("out") = py::none(), py::arg("desc") = py::none(), py::arg("impl") = "");
  for (const auto& [name, alg] : {std::pair<const char*, softmax_alg>{"softmax_backward",
                                                                      softmax_alg::softmax},
                                  {"logsoftmax_backward", softmax_alg::logsoftmax}}) {
    // pybind11 copies the docstring.
    const std::string doc = doc_of(kBackwardDoc, name,
                                   alg == softmax_alg::softmax ? "softmax" : "logsoftmax",
                                   "{forward}");
    const softmax_alg which = alg;
    m.def(
        name,
        [which](const py::array& diff_dst, const py::array& dst, int axis,
              py::handle diff_src_dtype, py::handle out, py::handle desc, py::handle dst_desc,
              const std::string& impl) {
          return backward(which, diff_dst, dst, axis, diff_src_dtype, out, desc, dst_desc, impl);
        },
        doc.c_str(), py::arg("diff_dst"), py::arg("dst"), py::arg("axis") = -1,
        py::kw_only(), py::arg("diff_src_dtype") = py::none(), py::arg("out") = py::none(),
        py::arg("desc") = py::none(), py::arg("dst_desc") = py::none(), py::arg("impl") = "");
  }
}

}  // namespace tessera::python
