#include "split_files.hpp"

#include "format/checksum.hpp"
#include "format/package_reader.hpp"

#include <charconv>
#include <cstdio>

namespace kiln::format {

namespace {

constexpr std::string_view k_extension = ".kiln";
constexpr std::size_t k_id_digits = 16;

// The content id's input: fixed-width integers, and text preceded by its length, so that no two
// files' fields run together into the same bytes.
class ContentBytes {
public:
  void add(std::uint64_t value) {
    for (int i = 0; i < 8; ++i) m_bytes.push_back(static_cast<std::byte>(value >> (8 * i)));
  }
  void add(std::string_view text) {
    add(text.size());
    for (const char c : text) m_bytes.push_back(static_cast<std::byte>(c));
  }
  const std::vector<std::byte>& bytes() const { return m_bytes; }

private:
  std::vector<std::byte> m_bytes;
};

// Calls `take` with each word of a list of words one space apart; false when `take` refuses one or
// the spacing is wrong (a space at either end, or two together).
template <class Take>
bool each_word(std::string_view list, Take take) {
  while (!list.empty()) {
    const std::size_t space = list.find(' ');
    if (!take(list.substr(0, space))) return false;
    if (space == std::string_view::npos) break;
    list.remove_prefix(space + 1);
    if (list.empty()) return false;  // a trailing space
  }
  return true;
}

bool is_id(std::string_view text) {
  if (text.size() != k_id_digits) return false;
  for (const char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

std::string content_id(const PackageReader& file) {
  ContentBytes in;
  in.add(file.image_count());
  for (std::uint32_t i = 0; i < file.image_count(); ++i) {
    const ImageView image = file.image(i);
    in.add(image.unit);
    in.add(file.target(image.target).name);
    in.add(image.raw_size);
    in.add(image.checksum);
  }
  in.add(file.kernel_count());
  for (std::uint32_t k = 0; k < file.kernel_count(); ++k) {
    const KernelView kernel = file.kernel(k);
    in.add(kernel.stored_name);
    in.add(kernel.flags);
    const std::vector<std::uint32_t> targets = file.kernel_targets(k);
    in.add(targets.size());
    for (const std::uint32_t t : targets) in.add(file.target(t).name);
  }
  char text[k_id_digits + 1];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(checksum(in.bytes())));
  return text;
}

std::optional<std::vector<CompanionContent>> parse_companion_contents(std::string_view list) {
  std::vector<CompanionContent> contents;
  const bool parsed = each_word(list, [&](std::string_view word) {
    const std::size_t colon = word.find(':');
    if (colon == std::string_view::npos || !is_id(word.substr(colon + 1))) return false;
    const std::optional<std::uint16_t> major = parse_companion_tag(word.substr(0, colon));
    if (!major || (!contents.empty() && *major <= contents.back().major)) return false;
    contents.push_back(CompanionContent{*major, std::string(word.substr(colon + 1))});
    return true;
  });
  return parsed ? std::optional(std::move(contents)) : std::nullopt;
}

std::string companion_contents(const std::vector<CompanionContent>& contents) {
  std::string list;
  for (const CompanionContent& c : contents) {
    if (!list.empty()) list += ' ';
    list += companion_tag(c.major);
    list += ':';
    list += c.id;
  }
  return list;
}

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
  const bool parsed = each_word(list, [&](std::string_view word) {
    const std::optional<std::uint16_t> major = parse_companion_tag(word);
    if (!major || (!majors.empty() && *major <= majors.back())) return false;
    majors.push_back(*major);
    return true;
  });
  return parsed ? std::optional(std::move(majors)) : std::nullopt;
}

std::string companion_path(std::string_view main_path, std::uint16_t major) {
  // Appended, not `"." + tag`: GCC 12 warns a false -Wrestrict on operator+(const char*, string&&).
  std::string suffix = ".";
  suffix += companion_tag(major);
  suffix += k_extension;
  if (main_path.size() > k_extension.size() && main_path.ends_with(k_extension)) {
    return std::string(main_path.substr(0, main_path.size() - k_extension.size())) + suffix;
  }
  return std::string(main_path) + suffix;
}

}  // namespace kiln::format
