// The interpreter of the ringmaster binary (embedded.h), in the plugin libringmaster_pyembed.so that the binary opens
// the first time a policy names a Python class (embedded_loader.cpp): `ringmaster._core` is this embedded module
// (the views), and the `ringmaster` package is the source tree's python/ (RM_PYTHON_DIR) where it exists, else the
// installed one.
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

}  // namespace rm::python

// The plugin's entry point (python/embedded_loader.cpp opens libringmaster_pyembed.so and calls it).
extern "C" __attribute__((visibility("default"))) void rm_install_embedded_python() {
  rm::python::install_embedded_python();
}
