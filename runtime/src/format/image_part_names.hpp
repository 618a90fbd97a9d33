// The names of image parts (docs/package-format.md, "Image parts"): part k (from 2) of the unit named
// "ops.cu" is the unit "ops.cu#k". One definition for the generator, which names parts, and for
// readers that tell parts from variants.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kiln::format {

struct ImagePartName {
  std::string unit;        // the unit it is a part of: "ops.cu"
  std::uint64_t part = 0;  // 2 and up
};

// "ops.cu#3" for unit "ops.cu", part 3.
std::string image_part_name(std::string_view unit, std::uint64_t part);

// The unit and part a name spells, or nothing: a non-empty unit, '#', then a number from 2 to
// 999,999,999 without a leading zero. (A variant's or link group's own name cannot hold '#'.)
std::optional<ImagePartName> parse_image_part_name(std::string_view name);

}  // namespace kiln::format
