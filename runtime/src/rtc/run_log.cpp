#include "rtc/run_log.hpp"

#include <cstdio>
#include <string>

namespace kiln::rtc {

void log_compile(std::string_view what, std::string_view source, std::string_view target, double seconds,
                 const std::filesystem::path& cache_directory) {
  const std::string from = what == source ? std::string() : " (" + std::string(source) + ")";
  const std::string kept =
      cache_directory.empty() ? std::string("kept in memory only") : "cached in " + cache_directory.string();
  std::fprintf(stderr, "kiln: compiled %.*s%s for %.*s at run time in %.1f ms; %s\n", static_cast<int>(what.size()),
               what.data(), from.c_str(), static_cast<int>(target.size()), target.data(), seconds * 1e3, kept.c_str());
}

void log_cache_hit(std::string_view what, std::string_view target, Source source) {
  const char* where = source == Source::memory ? "this process" : "the user cache";
  std::fprintf(stderr, "kiln: %.*s for %.*s: compiled at run time earlier (%s)\n", static_cast<int>(what.size()),
               what.data(), static_cast<int>(target.size()), target.data(), where);
}

}  // namespace kiln::rtc
