// Backends by name (`serve --backend NAME`, `replay --backend NAME`): one line each in backends.cpp.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "live/backend.h"

namespace rm::live {

// InputError naming --backend (with a did-you-mean) for an unknown name.
std::unique_ptr<Backend> make_backend(const std::string& name, const ServeOptions& o);
const std::vector<std::string>& backend_names();

}  // namespace rm::live
