// The parts of the `tessera` Python module, each adding its functions or classes to it.
//
//   PYBIND11_MODULE(tessera, m) {
//     tessera::python::bind_memory_desc(m);   // first: the others take MemoryDesc arguments
//     tessera::python::bind_reorder(m);
//     tessera::python::bind_softmax(m);
//   }
#ifndef TESSERA_PYTHON_BINDINGS_H_
#define TESSERA_PYTHON_BINDINGS_H_

#include <pybind11/pybind11.h>

#include "tessera/core/memory_desc.h"

namespace tessera::python {

namespace py = pybind11;

// class MemoryDesc (desc_binding.cc).
void bind_memory_desc(py::module_& m);
// reorder() (reorder_binding.cc).
void bind_reorder(py::module_& m);
// softmax(), logsoftmax() and their backward functions (softmax_binding.cc).
void bind_softmax(py::module_& m);

// The descriptor an argument holds when it is a MemoryDesc; nullptr for anything else.
const memory_desc* desc_argument(py::handle h);

}  // namespace tessera::python

#endif  // TESSERA_PYTHON_BINDINGS_H_
