// class MemoryDesc: tessera::memory_desc for Python, the descriptor form of reorder and softmax.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tessera/core/memory_desc.h"
#include "tessera/formats/layout.h"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/formats/md_string.h"
#include "tessera/python/bindings.h"
#include "tessera/python/numpy_types.h"
#include "tessera/python/views.h"

namespace tessera::python {
namespace {

template <class T>
py::tuple tuple_of(absl::Span<const T> values) {
  py::tuple t(values.size());
  for (size_t i = 0; i < values.size(); ++i) t[i] = values[i];
  return t;
}

// Row-major dense strides when neither a tag nor strides are given.
memory_desc make_desc(const std::vector<dim_t>& dims, py::handle dtype,
                      const std::optional<std::string>& tag,
                      const std::optional<std::vector<dim_t>>& strides) {
  const data_type dt = resolve_data_type(dtype);
  if (tag && strides) {
    throw py::value_error("MemoryDesc takes a tag or strides, not both");
  }
  if (tag) return value_or_throw(make_memory_desc(dims, dt, *tag));
  std::vector<dim_t> s(dims.size(), 1);
  if (strides) {
    s = *strides;
  } else {
    for (int d = static_cast<int>(dims.size()) - 2; d >= 0; --d) {
      s[d] = s[d + 1] * (dims[d + 1] > 0 ? dims[d + 1] : 1);
    }
  }
  return value_or_throw(memory_desc::with_strides(dims, dt, s));
}

py::list inner_blocks_of(const memory_desc& md) {
  py::list blocks;
  const blocking_desc& b = md.blocking();
  for (int k = 0; k < b.inner_nblks; ++k) blocks.append(py::make_tuple(b.inner_idxs[k], b.inner_blks[k]));
  return blocks;
}

dim_t offset_of(const memory_desc& md, const std::vector<dim_t>& index) {
  bool inside = static_cast<int>(index.size()) == md.rank();
  for (size_t d = 0; inside && d < index.size(); ++d) {
    inside = index[d] >= 0 && index[d] < md.padded_dims()[d];
  }
  if (!inside) {
    throw py::value_error(absl::StrCat("index (", absl::StrJoin(index, ", "),
                                       ") is not within the padded dims ",
                                       dims_to_string(md.padded_dims())));
  }
  return md.offset(index);
}

std::string repr_of(const memory_desc& md) {
  return absl::StrCat("MemoryDesc(", verbose_md_string(md), " ", dims_to_string(md.dims()), ")");
}

// The descriptor reorder() and softmax() read `array` through, and whether they read it in place.
py::tuple array_desc(const py::array& array, py::handle layout, py::handle dtype) {
  const int rank = static_cast<int>(array.ndim());
  std::vector<int> order(rank);
  for (int k = 0; k < rank; ++k) order[k] = k;
  if (!layout.is_none()) order = plain_order(py::str(layout).cast<std::string>(), rank);
  const tensor_view v = input_view(array, element_type_of(array, dtype), order);
  return py::make_tuple(v.desc, v.array.is(array));
}

}  // namespace

const memory_desc* desc_argument(py::handle h) {
  if (!py::isinstance<memory_desc>(h)) return nullptr;
  return &h.cast<const memory_desc&>();
}

void bind_memory_desc(py::module_& m) {
  py::class_<memory_desc>(m, "MemoryDesc", R"doc(
A tensor's dims, element type and layout (a format tag such as "nChw16c", or strides in items).
Its buffer, for reorder() and softmax(), is a C-contiguous array of `size` items of
`numpy_dtype` (blocked layouts: padding included).

    md = tessera.MemoryDesc((2, 17, 3, 3), "f32", tag="nChw16c")   # md.size == 2*32*3*3
    md = tessera.MemoryDesc((4, 5), np.float32, strides=(1, 4))      # column-major
)doc")
      .def(py::init(&make_desc), py::arg("dims"), py::arg("dtype"), py::arg("tag") = py::none(),
           py::arg("strides") = py::none())
      .def_property_readonly("dims", [](const memory_desc& md) { return tuple_of(md.dims()); })
      .def_property_readonly("padded_dims",
                             [](const memory_desc& md) { return tuple_of(md.padded_dims()); })
      .def_property_readonly("strides",
                             [](const memory_desc& md) {
                               return tuple_of(absl::Span<const dim_t>(
                                   md.blocking().strides.data(), md.rank()));
                             })
      .def_property_readonly("inner_blocks", &inner_blocks_of,
                             "[(dim, block size), ...], outermost block first")
      .def_property_readonly("dtype",
                             [](const memory_desc& md) { return std::string(name_of(md.dt())); })
      .def_property_readonly("numpy_dtype",
                             [](const memory_desc& md) { return storage_dtype(md.dt()); })
      .def_property_readonly("nbytes", &memory_desc::size_bytes)
      .def_property_readonly(
          "size",
          [](const memory_desc& md) { return md.size_bytes() / (bits_of(md.dt()) / 8); },
          "items of numpy_dtype its buffer holds, padding included")
      .def_property_readonly("is_blocked", &memory_desc::is_blocked)
      .def("offset", &offset_of, py::arg("index"),
           "the item offset of a logical index (within the padded dims) in the buffer")
      .def("__eq__", [](const memory_desc& a, const memory_desc& b) { return a == b; })
      .def("__repr__", &repr_of);
  m.def("array_desc", &array_desc, py::arg("array"), py::arg("layout") = py::none(),
        py::arg("dtype") = py::none(), R"doc(
array_desc(array, layout=None, dtype=None) -> (MemoryDesc, in_place)

The descriptor reorder() (with the plain tag `layout`) and softmax() (layout None: the array's
axes are the logical dims) read `array` through, and whether they read its buffer in place
(False: its strides fit no descriptor, so a C-contiguous copy is read).
)doc");
}

}  // namespace tessera::python
