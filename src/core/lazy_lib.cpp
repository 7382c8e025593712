#include "core/lazy_lib.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>


#ifndef RM_PLUGIN_DIR
#define RM_PLUGIN_DIR ""
#endif

namespace rm {
namespace {

std::mutex& mu() {
  static std::mutex m;
  return m;
}

// Opened libraries by name (never closed: their functions are kept in statics), with the loader's message on failure.
struct Opened {
  void* handle = nullptr;
  std::string error;
};

Opened& open_once(const std::string& path, int flags) {
  static std::map<std::string, Opened> opened;
  auto [it, fresh] = opened.try_emplace(path);
  if (fresh) {
    it->second.handle = ::dlopen(path.c_str(), flags);
    if (!it->second.handle) {
      const char* e = ::dlerror();
      it->second.error = e ? e : "unknown error";
    }
  }
  return it->second;
}

std::string dir_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

}  // namespace

void* find_lazy_symbol(const char* soname, const char* name) {
  std::lock_guard<std::mutex> lock(mu());
  Opened& lib = open_once(soname, RTLD_NOW | RTLD_LOCAL);
  return lib.handle ? ::dlsym(lib.handle, name) : nullptr;
}

void* lazy_symbol(const char* soname, const char* name) {
  std::lock_guard<std::mutex> lock(mu());
  Opened& lib = open_once(soname, RTLD_NOW | RTLD_LOCAL);
  if (!lib.handle) throw std::runtime_error(std::string("cannot open ") + soname + ": " + lib.error);
  void* p = ::dlsym(lib.handle, name);
  if (!p) throw std::runtime_error(std::string(soname) + " has no " + name);
  return p;
}

void* plugin_symbol(const char* plugin, const char* name, bool global) {
  std::lock_guard<std::mutex> lock(mu());
  const std::string file = std::string("lib") + plugin + ".so";
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("RINGMASTER_PLUGIN_DIR"); env && *env) dirs.emplace_back(env);
  Dl_info self{};
  if (::dladdr(reinterpret_cast<void*>(&plugin_symbol), &self)) {
    char buf[4096];
    std::string me = self.dli_fname ? self.dli_fname : "";
    if (me.find('/') == std::string::npos) {  // the main program: dladdr gives its name as run, or nothing
      const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
      if (n > 0) me.assign(buf, static_cast<std::size_t>(n));
    }
    dirs.push_back(dir_of(me));
  }
  if (*RM_PLUGIN_DIR) dirs.emplace_back(RM_PLUGIN_DIR);
  std::string tried;
  for (const std::string& d : dirs) {
    const std::string path = d + "/" + file;
    if (::access(path.c_str(), R_OK) != 0) {
      tried += (tried.empty() ? "" : ", ") + d;
      continue;
    }
    Opened& lib = open_once(path, RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL));
    if (!lib.handle) throw std::runtime_error("cannot load " + path + ": " + lib.error);
    void* p = ::dlsym(lib.handle, name);
    if (!p) throw std::runtime_error(path + " has no " + name + " (a plugin of another build?)");
    return p;
  }
  throw std::runtime_error("this build's " + file + " is not in " + tried +
                       " (set RINGMASTER_PLUGIN_DIR to the build folder that has it)");
}

}  // namespace rm
