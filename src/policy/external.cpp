#include "policy/external.h"

#include "core/error.h"

namespace rm {
namespace {
PythonPolicies* g_python = nullptr;
void (*g_loader)() = nullptr;
}  // namespace

void set_python_policies(PythonPolicies* p) { g_python = p; }
void set_python_loader(void (*load)()) { g_loader = load; }

PythonPolicies& python_policies() {
  if (!g_python && g_loader) {
    auto load = g_loader;
    g_loader = nullptr;  // once: a failed load is not retried
    load();
  }
  if (!g_python)
    throw InputError("--policy", 0, "py",
                     "Python policies need the ringmaster binary or the Python module (this program was built "
                     "without the Python layer)");
  return *g_python;
}

}  // namespace rm
