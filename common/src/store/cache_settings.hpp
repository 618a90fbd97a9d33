// Where the user's cache is and how it behaves, from the command line and the environment:
//
//   directory  --cache-dir DIR, else $KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln, else ~/.cache/kiln
//              (Windows: %LOCALAPPDATA%\kiln; platform::user_cache_directory)
//   enabled    $KILN_CACHE: 0, false, no, off turn the cache off; 1, true, yes, on (or unset) leave it on
//   max_size   $KILN_CACHE_MAX_SIZE (size_spec.hpp), default 5G
//
// Every cache of Kiln (compile, scan, and later the runtime's) reads the same variables.
#pragma once

#include "util/result.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>

namespace kiln::store {

struct CacheSettings {
  bool enabled = true;
  std::filesystem::path directory;     // empty when no variable names one (no HOME): the cache is off
  std::uint64_t max_size = 0;          // bytes; 0: no limit
};

// The same from the environment alone, the directory as UTF-8 text: what the loader's run-time cache
// hits read, without a std::filesystem::path. `enabled` is only what KILN_CACHE says; an empty
// `directory` (no variable names one) turns the cache off, as cache_settings does.
struct CacheSettingsText {
  bool enabled = true;
  std::string directory;
  std::uint64_t max_size = 0;
};

// Reads a variable: getenv, or a table in tests.
using Environment = std::function<std::optional<std::string>(const char* name)>;
Environment process_environment();

// An error names the variable and its value: "KILN_CACHE=maybe: not one of 0, 1, ...".
Result<CacheSettings> cache_settings(const std::filesystem::path& directory_option, const Environment& env);
Result<CacheSettingsText> cache_settings_text(const Environment& env);

}  // namespace kiln::store
