// KILN_LOG's lines about run-time compiles: each compile and each cache hit, on stderr.
#pragma once

#include "rtc/compiled_cache.hpp"

#include <filesystem>
#include <string_view>

namespace kiln::rtc {

// "kiln: compiled block_sum<double, 512> (kernels/ops.cu) for sm_90 at run time in 812.3 ms; cached in DIR",
// or with `not_cached`, "...; not cached: <not_cached>".
void log_compile(std::string_view what, std::string_view source, std::string_view target, double seconds,
                 const std::filesystem::path& cache_directory, std::string_view not_cached = {});
// "kiln: block_sum<double, 512> for sm_90: compiled at run time earlier (user cache)"
void log_cache_hit(std::string_view what, std::string_view target, Source source);

}  // namespace kiln::rtc
