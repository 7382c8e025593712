// The Python layer (docs/python.md): policies written in Python at the core's extension points (policy/external.h),
// the read-only views they see, and the bindings the Python module and the ringmaster binary share. Needs pybind11;
// the core library never includes this header.
#pragma once
#include <pybind11/pybind11.h>

#include <string>

namespace rm::python {

// Registers the views (JobView, ...) and the module-level helpers on `m`: the extension module `ringmaster._core`
// and, in the ringmaster binary, the embedded module that stands in for it.
void bind_views(pybind11::module_& m);
// A simulation run has ended (ringmaster.simulate returned): every view handed out during it now raises when read
// (a JobView kept past its run would read freed memory).
void end_python_views();

// Installs the Python policies into the core (policy/external.h). `before_first_use` runs once, before the first
// Python class is loaded (the binary starts its interpreter there; the module has one).
void install_python_policies(void (*before_first_use)());

// A class object handed to the module's simulate(): the token its policy string carries (py:obj=N).
std::string register_policy_object(pybind11::object cls);

}  // namespace rm::python
