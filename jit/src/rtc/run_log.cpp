#include "rtc/run_log.hpp"

#include "util/printable.hpp"

#include <cstdio>
#include <string>

namespace kiln::rtc {

void log_compile(std::string_view what, std::string_view source, std::string_view target, double seconds,
                 const std::filesystem::path& cache_directory, std::string_view not_cached) {
  const std::string from = what == source ? std::string() : " (" + std::string(source) + ")";
  const std::string kept = !not_cached.empty()       ? "not cached: " + std::string(not_cached)
                           : cache_directory.empty() ? std::string("kept in memory only")
                                                     : "cached in " + cache_directory.string();
  // Names are data: their control bytes are escaped (util/printable.hpp).
  const std::string named = printable(std::string(what) + from);
  std::fprintf(stderr, "kiln: compiled %s for %.*s at run time in %.1f ms; %s\n", named.c_str(),
               static_cast<int>(target.size()), target.data(), seconds * 1e3, printable(kept).c_str());
}

void log_cache_hit(std::string_view what, std::string_view target, Source source) {
  const char* where = source == Source::memory ? "this process" : "the user cache";
  std::fprintf(stderr, "kiln: %s for %.*s: compiled at run time earlier (%s)\n", printable(what).c_str(),
               static_cast<int>(target.size()), target.data(), where);
}

}  // namespace kiln::rtc
