#include "store/cache_settings.hpp"

#include "util/switch_words.hpp"

#include "platform/files.hpp"
#include "platform/text.hpp"
#include "store/size_spec.hpp"

namespace kiln::store {

namespace fs = std::filesystem;

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
    settings.directory = *dir;
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
  settings.directory = !directory_option.empty() ? directory_option : platform::path_of_utf8(text->directory);
  if (settings.directory.empty()) settings.enabled = false;
  return settings;
}

}  // namespace kiln::store
