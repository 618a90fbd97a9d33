// The one checksum of the package format: XXH3-64 with seed 0.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace kiln::format {

std::uint64_t checksum(std::span<const std::byte> bytes);

// The portable implementation, whatever the CPU: for tests that compare the two.
std::uint64_t checksum_baseline(std::span<const std::byte> bytes);

}  // namespace kiln::format
