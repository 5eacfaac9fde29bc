// The `tessera` Python module: reorder and softmax of NumPy arrays (docs/python.md).
#include <pybind11/pybind11.h>

#include "tessera/core/version.h"
#include "tessera/python/bindings.h"

PYBIND11_MODULE(tessera, m) {
  m.doc() =
      "Tessera: reorder and softmax of NumPy arrays between memory formats and element types. "
      "See docs/python.md.";
  m.attr("__version__") = tessera::kVersionString;
  tessera::python::bind_memory_desc(m);
  tessera::python::bind_reorder(m);
  tessera::python::bind_softmax(m);
}
