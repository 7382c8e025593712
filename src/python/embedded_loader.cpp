// Linked into the ringmaster binary only: the Python layer is installed the first time a policy needs it, from the
// plugin libringmaster_pyembed.so (embedded.cpp, the interpreter and libpython), opened with its symbols global so
// that the extension modules a policy imports (numpy, ...) find libpython's. A run without Python never loads it
// (issue 47: start-up). The plugin resolves the core's functions from this binary (it exports them: CMakeLists.txt).
#include "core/lazy_lib.h"
#include "policy/external.h"

namespace {

void load_embedded_python() {
  using Install = void (*)();
  reinterpret_cast<Install>(rm::plugin_symbol("ringmaster_pyembed", "rm_install_embedded_python", true))();
}

// Before main (policy/external.h's pointers are constant-initialised: the order of static initialisation does not
// matter).
const bool loader_set = (rm::set_python_loader(&load_embedded_python), true);

}  // namespace
