#include "format/image_part_names.hpp"

namespace kiln::format {

std::string image_part_name(std::string_view unit, std::uint64_t part) {
  return std::string(unit) + "#" + std::to_string(part);
}

std::optional<ImagePartName> parse_image_part_name(std::string_view name) {
  const std::size_t hash = name.rfind('#');
  if (hash == std::string_view::npos || hash == 0) return std::nullopt;
  const std::string_view digits = name.substr(hash + 1);
  if (digits.empty() || digits.size() > 9 || digits.front() == '0') return std::nullopt;
  std::uint64_t part = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    part = part * 10 + static_cast<std::uint64_t>(c - '0');
  }
  if (part < 2) return std::nullopt;
  return ImagePartName{std::string(name.substr(0, hash)), part};
}

}  // namespace kiln::format
