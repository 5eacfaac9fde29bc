// The element types of the Python module: Tessera's data_type beside NumPy's dtype.
//
//   tessera::data_type dt = tessera::python::data_type_of(py::dtype("float16"));   // f16
//   py::dtype storage = tessera::python::storage_dtype(tessera::data_type::bf16);   // uint16
//   tessera::data_type b = tessera::python::resolve_data_type(py::str("bf16"));    // bf16
//
// NumPy has no bf16 or fp8: a bf16 tensor is a uint16 array of its bit patterns, an fp8 tensor a
// uint8 array (and must be named, since uint8 alone means u8). uint16 alone means bf16.
#ifndef TESSERA_PYTHON_NUMPY_TYPES_H_
#define TESSERA_PYTHON_NUMPY_TYPES_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "tessera/core/data_type.h"

namespace tessera::python {

namespace py = pybind11;

// The Tessera type a NumPy dtype holds (uint16 -> bf16); ValueError for any other dtype.
data_type data_type_of(const py::dtype& dt);

// The NumPy dtype whose items store `dt` (bf16 -> uint16, f8_* -> uint8).
py::dtype storage_dtype(data_type dt);

// A type given by the user: a Tessera name ("f32", "bf16", "f8_e4m3") or anything np.dtype()
// takes (np.float16, "int8", an array's dtype). ValueError when it names no Tessera type.
data_type resolve_data_type(py::handle type);

// The type of an array's elements: `type` when given (its storage must be the array's dtype,
// e.g. "f8_e5m2" over uint8), else data_type_of(array.dtype()).
data_type element_type_of(const py::array& array, py::handle type);

}  // namespace tessera::python

#endif  // TESSERA_PYTHON_NUMPY_TYPES_H_
