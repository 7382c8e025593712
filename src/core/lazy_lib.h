// Libraries that most runs never call are opened the first time a run needs them, not bound by the dynamic linker
// before main (issue 47, docs/design.md "Start-up"): XGBoost (the rf predictor), Qhull and LAPACK (Pollux's measured
// step-time interpolation), L-BFGS-B (Pollux's throughput fit) through their C functions (RM_LAZY), and COIN-OR
// Cbc/Clp and the embedded Python interpreter through this build's plugin libraries (libringmaster_*.so).
#pragma once

namespace rm {

// The function or object `name` of the shared library `soname` (opened on first use, RTLD_NOW | RTLD_LOCAL, kept
// open to the end of the process); null if either is missing.
void* find_lazy_symbol(const char* soname, const char* name);
// The same, throwing std::runtime_error naming the library, the symbol and the loader's message when missing (an
// installation problem, not a broken invariant: the CLI prints "error: ..." and exits 3).
void* lazy_symbol(const char* soname, const char* name);

// The symbol `name` of this build's plugin library lib<plugin>.so, looked for in $RINGMASTER_PLUGIN_DIR, beside the
// program or module that holds this code, then in the build folder it came from. `global`: its symbols (and its
// libraries', e.g. libpython's) serve the libraries loaded after it (Python's extension modules need that).
// Throws std::runtime_error naming the folders tried when the plugin or the symbol is missing.
void* plugin_symbol(const char* plugin, const char* name, bool global = false);

}  // namespace rm

// A C function of a lazily opened library, with its declared type: RM_LAZY(RM_SONAME_XGBOOST, XGBoosterFree)(h).
// Looked up once per call site.
#define RM_LAZY(soname, fn)                                                                                     \
  ([]() -> decltype(&fn) {                                                                                      \
    static const auto rm_lazy_p = reinterpret_cast<decltype(&fn)>(::rm::lazy_symbol(soname, #fn));              \
    return rm_lazy_p;                                                                                            \
  }())
