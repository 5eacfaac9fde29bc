#include "tessera/python/numpy_types.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "tessera/core/data_type.h"

namespace tessera::python {
namespace {

constexpr const char* kTypesText =
    "f32 (float32), f64 (float64), f16 (float16), bf16 (uint16), s32 (int32), s8 (int8), "
    "u8 (uint8), f8_e5m2 and f8_e4m3 (uint8, by name)";

std::string text_of(py::handle h) { return py::str(py::repr(h)).cast<std::string>(); }

}  // namespace

data_type data_type_of(const py::dtype& dt) {
  if (dt.byteorder() == '>') {
    throw py::value_error(absl::StrCat("dtype ", text_of(dt),
                                       " is big-endian; Tessera reads native (little-endian) items"));
  }
  const char kind = dt.kind();
  const int size = static_cast<int>(dt.itemsize());
  if (kind == 'f' && size == 4) return data_type::f32;
  if (kind == 'f' && size == 8) return data_type::f64;
  if (kind == 'f' && size == 2) return data_type::f16;
  if (kind == 'i' && size == 4) return data_type::s32;
  if (kind == 'i' && size == 1) return data_type::s8;
  if (kind == 'u' && size == 1) return data_type::u8;
  if (kind == 'u' && size == 2) return data_type::bf16;
  throw py::value_error(absl::StrCat("dtype ", text_of(dt),
                                     " has no Tessera type; the types are ", kTypesText));
}

py::dtype storage_dtype(data_type dt) {
  switch (dt) {
    case data_type::f32: return py::dtype("float32");
    case data_type::f64: return py::dtype("float64");
    case data_type::f16: return py::dtype("float16");
    case data_type::bf16: return py::dtype("uint16");
    case data_type::s32: return py::dtype("int32");
    case data_type::s8: return py::dtype("int8");
    case data_type::u8:
    case data_type::f8_e5m2:
    case data_type::f8_e4m3: return py::dtype("uint8");
    case data_type::undef: break;
  }
  throw py::value_error("data type undef has no NumPy storage");
}

data_type resolve_data_type(py::handle type) {
  if (py::isinstance<py::str>(type)) {
    absl::StatusOr<data_type> named = parse_data_type(type.cast<std::string>());
    if (named.ok() && *named != data_type::undef) return *named;
  }
  py::dtype dt;
  try {
    dt = py::dtype::from_args(py::reinterpret_borrow<py::object>(type));
  } catch (const py::error_already_set&) {
    throw py::value_error(absl::StrCat("type ", text_of(type),
                                       " is neither a Tessera type nor a NumPy dtype; the types are ",
                                       kTypesText));
  }
  return data_type_of(dt);
}

data_type element_type_of(const py::array& array, py::handle type) {
  const data_type held = data_type_of(array.dtype());
  if (type.is_none()) return held;
  const data_type dt = resolve_data_type(type);
  const py::dtype storage = storage_dtype(dt);
  if (storage.kind() != array.dtype().kind() || storage.itemsize() != array.dtype().itemsize()) {
    throw py::value_error(absl::StrCat("an array of dtype ", text_of(array.dtype()),
                                       " cannot hold type ", name_of(dt), ": its storage is ",
                                       text_of(storage)));
  }
  return dt;
}

}  // namespace tessera::python
