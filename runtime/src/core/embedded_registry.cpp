#include "core/embedded_registry.hpp"

#include "platform/library.hpp"

#include <algorithm>
#include <mutex>

namespace kiln::core {

namespace {

struct Registry {
  std::mutex mutex;
  std::vector<EmbeddedPackage> packages;  // in registration order
};

// Never destroyed: modules unregister from their destructors, which can run after this library's
// static destructors at exit (glibc runs atexit handlers before the modules' fini arrays).
Registry& registry() {
  static Registry* const instance = new Registry;
  return *instance;
}

}  // namespace

void register_embedded(std::string_view name, const void* data, std::size_t size) {
  // dladdr before taking the lock: it takes the loader's lock, and a registration runs while the
  // loader holds it (from a constructor), so the two are never taken in the other order here.
  const platform::ModuleInfo module = platform::module_of(data);
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  for (const EmbeddedPackage& p : r.packages) {
    if (p.name == name && p.data == data) return;
  }
  r.packages.push_back(EmbeddedPackage{std::string(name), data, size, module.base, module.path});
}

void unregister_embedded(std::string_view name, const void* data) {
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  std::erase_if(r.packages, [&](const EmbeddedPackage& p) { return p.name == name && p.data == data; });
}

std::optional<EmbeddedPackage> find_embedded(std::string_view name, const void* caller_module) {
  Registry& r = registry();
  const std::lock_guard<std::mutex> lock(r.mutex);
  const EmbeddedPackage* first = nullptr;
  for (const EmbeddedPackage& p : r.packages) {
    if (p.name != name) continue;
    if (caller_module != nullptr && p.module == caller_module) return p;
    if (first == nullptr) first = &p;
  }
  if (first == nullptr) return std::nullopt;
  return *first;
}

std::vector<std::string> embedded_names() {
  std::vector<std::string> names;
  {
    Registry& r = registry();
    const std::lock_guard<std::mutex> lock(r.mutex);
    for (const EmbeddedPackage& p : r.packages) names.push_back(p.name);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

}  // namespace kiln::core
