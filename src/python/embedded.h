// The ringmaster binary's Python (docs/python.md): an interpreter started the first time a policy names a Python
// class, never before (a run without one does not pay for it).
#pragma once

namespace rm::python {

// Installs the Python policies; the interpreter starts at the first `py` part.
void install_embedded_python();

}  // namespace rm::python
