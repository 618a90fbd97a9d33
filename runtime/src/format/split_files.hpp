// The files of a split package (kiln split; docs/split-packages.md): `<name>.kiln` holds the index
// and every PTX image, `<name>.cc<major>.kiln` beside it the cubins of one compute-capability major.
// Every file is a whole package with the same KERNELS, UNITS and VARIABLES, so an index in one is
// the same index in the others; METADATA ties them together. The writer (kiln split) and the
// runtime both use these definitions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::format {

// In every file: one id for the files of one split (16 hex digits: the XXH3-64 of the package that
// was split). A companion is used only with the main file of the same id.
inline constexpr std::string_view k_split_id_key = "split.id";
// In the main file: the companions written, "cc8 cc9 cc12" (majors ascending, one space apart).
inline constexpr std::string_view k_split_files_key = "split.files";
// In a companion: which one it is, "cc9".
inline constexpr std::string_view k_split_file_key = "split.file";
// In the main file: the content id of each companion, "cc8:<16 hex> cc9:<16 hex>" (the tags of
// split.files, in its order). A companion is used only when its content id is the one listed: a
// companion of another build of the package, or one given the main file's split.id, has other
// images, and so another id.
inline constexpr std::string_view k_split_contents_key = "split.contents";

class PackageReader;

// A file's content id, 16 hex digits: the XXH3-64 of its images (each one's unit, target, size and
// checksum, the checksum its bytes must match when loaded) and its kernels (each one's lowered name,
// flags and targets), in table order. Its METADATA is not covered, so the writer computes the id
// from the companion it wrote and lists it in the main file.
std::string content_id(const PackageReader& file);

struct CompanionContent {
  std::uint16_t major = 0;
  std::string id;   // 16 lowercase hex digits
};
// "cc8:0123456789abcdef cc9:..." -> {{8, "0123456789abcdef"}, {9, ...}}; nullopt unless every word
// is a tag, ':' and 16 lowercase hex digits, the majors ascending.
std::optional<std::vector<CompanionContent>> parse_companion_contents(std::string_view list);
std::string companion_contents(const std::vector<CompanionContent>& contents);

std::string companion_tag(std::uint16_t major);                       // 9 -> "cc9"
std::optional<std::uint16_t> parse_companion_tag(std::string_view tag);  // "cc9" -> 9; else nullopt
// "cc8 cc9" -> {8, 9}; nullopt unless every word is a tag and they ascend.
std::optional<std::vector<std::uint16_t>> parse_companion_list(std::string_view list);

// Where a main file's companion lives: "dir/app.kiln" -> "dir/app.cc9.kiln"; a name without the
// ".kiln" extension gets ".cc9.kiln" appended. Only the file name changes, so any separator works.
std::string companion_path(std::string_view main_path, std::uint16_t major);

}  // namespace kiln::format
