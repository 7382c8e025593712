// The interpreter inside the ringmaster binary (embedded.h): `ringmaster._core` is this embedded module (the views),
// and the `ringmaster` package is the source tree's python/ (RM_PYTHON_DIR) where it exists, else the installed one.
#include "python/embedded.h"

#include <pybind11/embed.h>

#include "python/python_layer.h"

namespace py = pybind11;

PYBIND11_EMBEDDED_MODULE(_ringmaster_embedded, m) { rm::python::bind_views(m); }

namespace rm::python {
namespace {

void start() {
  if (Py_IsInitialized()) return;
  py::initialize_interpreter();  // kept to the end of the process: the policies' objects live in it
  py::module_ sys = py::module_::import("sys");
  // The package of the tree this binary was built from comes first: its Python half must match this _core.
  sys.attr("path").attr("insert")(0, RM_PYTHON_DIR);
  sys.attr("modules")["ringmaster._core"] = py::module_::import("_ringmaster_embedded");
}

}  // namespace

void install_embedded_python() { install_python_policies(&start); }

namespace {
// Linked into the binary only: installs the Python policies before main (policy/external.h's pointer is constant-
// initialised, so the order of static initialisation does not matter).
const bool installed = (install_embedded_python(), true);
}  // namespace

}  // namespace rm::python
