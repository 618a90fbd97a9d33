#include "store/cache_settings.hpp"

#include "util/switch_words.hpp"

#include "platform/files.hpp"
#include "platform/text.hpp"
#include "store/size_spec.hpp"

namespace kiln::store {

namespace fs = std::filesystem;

namespace {

// A relative KILN_CACHE_DIR (or --cache-dir) names a directory under the working directory as it is
// when the settings are read (once per process by the loader and by the compile library, once per
// command by kiln): pinned there, so that a program that changes its directory later keeps one cache
// rather than reading and writing a new one under each directory it visits.
std::string pinned(const std::string& directory) {
#if !defined(_WIN32)
  // An absolute path is kept as it is, without std::filesystem: the loader reads these settings on a
  // first run-time cache hit, and libstdc++'s path code, run nowhere else on that path, cost it about
  // 20 us cold on an H200's host (bench/results/runtime-load.md).
  if (directory.starts_with('/')) return directory;
#endif
  const fs::path path = platform::path_of_utf8(directory);
  if (!path.is_relative()) return directory;
  std::error_code error;
  const fs::path absolute = fs::absolute(path, error);
  return error ? directory : platform::utf8_of(absolute.lexically_normal());
}

}  // namespace

Environment process_environment() {
  return [](const char* name) -> std::optional<std::string> {
    const char* value = platform::environment(name);
    if (!value) return std::nullopt;
    return std::string(value);
  };
}

Result<CacheSettingsText> cache_settings_text(const Environment& env) {
  CacheSettingsText settings;
  if (const std::optional<std::string> on = env("KILN_CACHE")) {
    if (is_off_word(*on)) {
      settings.enabled = false;
    } else if (!(on->empty() || is_on_word(*on))) {
      return Error{"KILN_CACHE=" + *on + ": not one of 0, false, no, off (cache off) or 1, true, yes, on (cache on)"};
    }
  }
  settings.max_size = k_default_max_size;
  if (const std::optional<std::string> size = env("KILN_CACHE_MAX_SIZE")) {
    Result<std::uint64_t> parsed = parse_size(*size, "KILN_CACHE_MAX_SIZE");
    if (!parsed) return parsed.error();
    settings.max_size = *parsed;
  }
  if (const std::optional<std::string> dir = env("KILN_CACHE_DIR"); dir && !dir->empty()) {
    settings.directory = pinned(*dir);
  } else {
    settings.directory = platform::user_cache_directory_utf8(env, "kiln");
  }
  return settings;
}

Result<CacheSettings> cache_settings(const fs::path& directory_option, const Environment& env) {
  Result<CacheSettingsText> text = cache_settings_text(env);
  if (!text) return text.error();
  CacheSettings settings;
  settings.enabled = text->enabled;
  settings.max_size = text->max_size;
  settings.directory = !directory_option.empty() ? platform::path_of_utf8(pinned(platform::utf8_of(directory_option)))
                                                 : platform::path_of_utf8(text->directory);
  if (settings.directory.empty()) settings.enabled = false;
  return settings;
}

}  // namespace kiln::store
