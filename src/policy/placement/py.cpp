// py: a placement written in Python (docs/python.md): the class's place(job, servers), or its filter and score
// over the servers with free GPUs. Built by the Python layer (policy/external.h).
#include "policy/external.h"
#include "policy/params.h"
#include "policy/placement/placements.h"

namespace rm {

std::unique_ptr<Placement> make_py_placement(PluginParams& p) {
  return python_policies().placement(p.rest(), p.seed());
}

}  // namespace rm
