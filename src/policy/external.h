// Policies written in Python (src/python/), plugged in at the same extension points as the C++ ones: a part named
// `py` in a policy string, `py:file=PATH;class=NAME` (or `py:PATH:NAME`), or a class object handed to the Python
// module's simulate(). The core knows them only through this seam, which the Python layer fills when it is linked
// (the ringmaster binary and the Python module); without it a `py` part is refused with a clear error.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "policy/plugin.h"
#include "policy/policy_spec.h"

namespace rm {

class PythonPolicies {
 public:
  virtual ~PythonPolicies() = default;
  // A queue order from the part's parameters: file= and class=, or obj= (a class the module registered); any
  // other key=value goes to the class's constructor as a keyword argument (a string). Throws InputError naming
  // the file for a missing file, class or method, and with the traceback for an exception in the user's code.
  virtual std::unique_ptr<QueueOrder> order(const std::map<std::string, std::string>& kv, std::uint64_t seed) = 0;
  // The same for the other extension points: a placement (place, or filter and score), a CPU/DRAM allocation
  // (allocate) and a whole scheduler (schedule(view) -> decisions).
  virtual std::unique_ptr<Placement> placement(const std::map<std::string, std::string>& kv, std::uint64_t seed) = 0;
  virtual std::unique_ptr<Allocation> allocation(const std::map<std::string, std::string>& kv, std::uint64_t seed) = 0;
  virtual std::unique_ptr<Scheduler> scheduler(const std::map<std::string, std::string>& kv, std::uint64_t seed) = 0;
  // Which extension point the class a part names plugs into (Order, Placement, Allocation or Scheduler), from the
  // methods it defines (or its `point` attribute): the grammar asks this when it parses the policy string.
  virtual Point point(const std::map<std::string, std::string>& kv) = 0;
};

// Installed once by the Python layer (not owned).
void set_python_policies(PythonPolicies* p);
// A function that installs the layer when it is first needed (the ringmaster binary: it opens the plugin that holds
// the interpreter, so that runs without Python never load libpython). Called at most once, by python_policies().
void set_python_loader(void (*load)());
// The installed layer; InputError("--policy", ...) if this build has none.
PythonPolicies& python_policies();

}  // namespace rm
