#include "split_files.hpp"

#include <charconv>

namespace kiln::format {

namespace {

constexpr std::string_view k_extension = ".kiln";

}  // namespace

std::string companion_tag(std::uint16_t major) { return "cc" + std::to_string(major); }

std::optional<std::uint16_t> parse_companion_tag(std::string_view tag) {
  if (tag.size() < 3 || tag.size() > 4 || tag.substr(0, 2) != "cc" || tag[2] == '0') return std::nullopt;
  std::uint16_t major = 0;
  const auto [end, error] = std::from_chars(tag.data() + 2, tag.data() + tag.size(), major);
  if (error != std::errc() || end != tag.data() + tag.size()) return std::nullopt;
  return major;
}

std::optional<std::vector<std::uint16_t>> parse_companion_list(std::string_view list) {
  std::vector<std::uint16_t> majors;
  while (!list.empty()) {
    const std::size_t space = list.find(' ');
    const std::optional<std::uint16_t> major = parse_companion_tag(list.substr(0, space));
    if (!major || (!majors.empty() && *major <= majors.back())) return std::nullopt;
    majors.push_back(*major);
    if (space == std::string_view::npos) break;
    list.remove_prefix(space + 1);
    if (list.empty()) return std::nullopt;  // a trailing space
  }
  return majors;
}

std::string companion_path(std::string_view main_path, std::uint16_t major) {
  const std::string suffix = "." + companion_tag(major) + std::string(k_extension);
  if (main_path.size() > k_extension.size() && main_path.ends_with(k_extension)) {
    return std::string(main_path.substr(0, main_path.size() - k_extension.size())) + suffix;
  }
  return std::string(main_path) + suffix;
}

}  // namespace kiln::format
