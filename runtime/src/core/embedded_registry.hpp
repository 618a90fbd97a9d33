// Packages linked into executables and shared libraries (kiln_add_cache(... EMBED)): a constructor
// that CMake generates into each such module registers the package's bytes under its name when the
// module loads, and unregisters them when it unloads. kiln_package_open_named looks here first.
// Process-wide; safe to use from many threads and from static constructors and destructors.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::core {

struct EmbeddedPackage {
  std::string name;
  const void* data = nullptr;   // borrowed: valid while the module that holds it is loaded
  std::size_t size = 0;
  const void* module = nullptr; // base address of the module holding `data` (null if unknown)
  std::string module_path;      // its file, for messages ("" if unknown)
};

// Adds a registration; registering the same name and bytes again changes nothing.
void register_embedded(std::string_view name, const void* data, std::size_t size);
// Removes the registration of `name` with these bytes, if there is one.
void unregister_embedded(std::string_view name, const void* data);

// The registration of `name` linked into the module at `caller_module` if there is one (two modules
// may each embed a package of the same name), else the earliest registration of `name`.
std::optional<EmbeddedPackage> find_embedded(std::string_view name, const void* caller_module);

// Every registered name, sorted and without repeats: for "not found" messages.
std::vector<std::string> embedded_names();

}  // namespace kiln::core
