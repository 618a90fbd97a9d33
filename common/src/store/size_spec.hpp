// Cache sizes in ccache's syntax: a number (a fraction is allowed) and an optional unit, K, M, G or T
// for powers of 1000 and Ki, Mi, Gi, Ti for powers of 1024, optionally followed by B ("5G", "500M",
// "1.5GiB"). A bare number is in G, as in ccache; "0" means no limit.
#pragma once

#include "util/result.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace kiln::store {

inline constexpr std::uint64_t k_default_max_size = 5'000'000'000;   // 5G

// The size in bytes; an error naming `what` (the variable or option it came from) and the text.
Result<std::uint64_t> parse_size(std::string_view text, std::string_view what);

// "1.2 MB", "5.0 GB", "512 bytes": for people, not for parse_size.
std::string format_size(std::uint64_t bytes);

}  // namespace kiln::store
