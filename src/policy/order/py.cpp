// py: a queue order written in Python (docs/python.md): the class's key(job) orders the queue; its class
// attributes give the flags a C++ order declares. Built by the Python layer (policy/external.h).
#include "policy/external.h"
#include "policy/order/orders.h"

namespace rm {

std::unique_ptr<QueueOrder> make_py_order(PluginParams& p) {
  // Every key is the class's business (file, class, obj and its constructor's keywords): all of them, marked used.
  return python_policies().order(p.rest(), p.seed());
}

}  // namespace rm
