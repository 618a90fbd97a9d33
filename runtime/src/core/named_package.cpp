#include "core/named_package.hpp"

#include "core/embedded_registry.hpp"
#include "platform/files.hpp"
#include "platform/library.hpp"
#include "platform/text.hpp"

#include <cstdlib>
#include <filesystem>
#include <optional>

namespace kiln::core {

namespace {

namespace fs = std::filesystem;

bool file_exists(const fs::path& path) {
  platform::FileStatus info;
  return platform::status_of(path, info);
}

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : separator) + item;
  return out;
}

Status open_embedded(const EmbeddedPackage& embedded, std::unique_ptr<Package>& out) {
  const std::string label =
      embedded.name + " (embedded" + (embedded.module_path.empty() ? "" : " in " + embedded.module_path) + ")";
  return Package::open_memory(embedded.data, embedded.size, /*copy=*/false, label.c_str(), out);
}

}  // namespace

std::vector<std::string> split_package_path(std::string_view value) {
  std::vector<std::string> dirs;
  while (!value.empty()) {
    const std::size_t colon = value.find(platform::path_list_separator());
    const std::string_view dir = value.substr(0, colon);
    if (!dir.empty()) dirs.emplace_back(dir);
    if (colon == std::string_view::npos) break;
    value.remove_prefix(colon + 1);
  }
  return dirs;
}

// A name, not a path: "saxpy", never "dir/saxpy" or "saxpy.kiln".
Status check_package_name(std::string_view name, std::string_view function) {
  const std::string quoted = "'" + std::string(name) + "'";
  if (name.empty()) return fail(KILN_STATUS_INVALID_ARGUMENT, std::string(function) + ": name is empty");
  if (name.find_first_of("/\\") != std::string_view::npos) {
    return fail(KILN_STATUS_INVALID_ARGUMENT, std::string(function) + ": name " + quoted +
                                                  " is a path; give a package name, or use kiln_package_open_file");
  }
  if (name.ends_with(".kiln")) {
    return fail(KILN_STATUS_INVALID_ARGUMENT,
                std::string(function) + ": name " + quoted + " ends in .kiln; give the name without it");
  }
  return {};
}

Status open_named(std::string_view name, const void* caller, std::unique_ptr<Package>& out) {
  KILN_TRY(check_package_name(name, "kiln_package_open_named"));
  const std::string file_name = std::string(name) + ".kiln";
  const platform::ModuleInfo module = platform::module_of(caller);
  std::vector<std::string> looked;

  if (const std::optional<EmbeddedPackage> embedded = find_embedded(name, module.base)) {
    return open_embedded(*embedded, out);
  }
  const std::vector<std::string> registered = embedded_names();
  looked.push_back("embedded packages (registered: " + (registered.empty() ? "none" : join(registered, ", ")) + ")");

  if (!module.path.empty()) {
    const fs::path file = platform::path_of_utf8(module.path).parent_path() / platform::path_of_utf8(file_name);
    const std::string candidate = platform::utf8_of(file);
    if (file_exists(file)) return Package::open_file(candidate.c_str(), out);
    looked.push_back(candidate + " (next to the calling module " + module.path + ")");
  } else {
    looked.push_back("next to the calling module (unknown: no loaded module holds the caller's address)");
  }

  const char* env = platform::environment("KILN_PACKAGE_PATH");
  const std::vector<std::string> dirs = split_package_path(env ? env : "");
  std::vector<std::string> candidates;
  for (const std::string& dir : dirs) {
    const fs::path file = platform::path_of_utf8(dir) / platform::path_of_utf8(file_name);
    const std::string candidate = platform::utf8_of(file);
    if (file_exists(file)) return Package::open_file(candidate.c_str(), out);
    candidates.push_back(candidate);
  }
  looked.push_back("KILN_PACKAGE_PATH" + (candidates.empty() ? std::string(" (not set or empty)")
                                                             : ": " + join(candidates, ", ")));
  return fail(KILN_STATUS_PACKAGE_NOT_FOUND,
              "no package '" + std::string(name) + "'; looked in: " + join(looked, "; "));
}

}  // namespace kiln::core
