// py: a CPU/DRAM allocation written in Python (docs/python.md): the class's allocate(job, servers) sizes the shares
// of a placed job, or leaves it waiting. Built by the Python layer (policy/external.h).
#include "policy/allocation/allocations.h"
#include "policy/external.h"
#include "policy/params.h"

namespace rm {

std::unique_ptr<Allocation> make_py_allocation(PluginParams& p) {
  return python_policies().allocation(p.rest(), p.seed());
}

}  // namespace rm
