#include "store/cache_settings.hpp"

#include "store/size_spec.hpp"

#include <cstdlib>

namespace kiln::store {

namespace fs = std::filesystem;

Environment process_environment() {
  return [](const char* name) -> std::optional<std::string> {
    const char* value = std::getenv(name);
    if (!value) return std::nullopt;
    return std::string(value);
  };
}

Result<CacheSettings> cache_settings(const fs::path& directory_option, const Environment& env) {
  CacheSettings settings;
  if (const std::optional<std::string> on = env("KILN_CACHE")) {
    if (*on == "0" || *on == "false" || *on == "no" || *on == "off") {
      settings.enabled = false;
    } else if (!(on->empty() || *on == "1" || *on == "true" || *on == "yes" || *on == "on")) {
      return Error{"KILN_CACHE=" + *on + ": not one of 0, false, no, off (cache off) or 1, true, yes, on (cache on)"};
    }
  }
  settings.max_size = k_default_max_size;
  if (const std::optional<std::string> size = env("KILN_CACHE_MAX_SIZE")) {
    Result<std::uint64_t> parsed = parse_size(*size, "KILN_CACHE_MAX_SIZE");
    if (!parsed) return parsed.error();
    settings.max_size = *parsed;
  }
  const auto set = [](const std::optional<std::string>& value) { return value && !value->empty(); };
  if (!directory_option.empty()) {
    settings.directory = directory_option;
  } else if (const std::optional<std::string> dir = env("KILN_CACHE_DIR"); set(dir)) {
    settings.directory = *dir;
  } else if (const std::optional<std::string> xdg = env("XDG_CACHE_HOME"); set(xdg)) {
    settings.directory = fs::path(*xdg) / "kiln";
  } else if (const std::optional<std::string> home = env("HOME"); set(home)) {
    settings.directory = fs::path(*home) / ".cache" / "kiln";
  }
  if (settings.directory.empty()) settings.enabled = false;
  return settings;
}

}  // namespace kiln::store
