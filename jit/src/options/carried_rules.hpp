// What a carried unit (CARRIED_ENTRIES) may hold: exactly what a build of this Kiln
// writes, so that a package chooses nothing that NVRTC or nvJitLink writes, reads or runs beyond its
// own carried files. `kiln verify` reports every problem; the runtime refuses a unit with one before
// it writes or compiles anything.
//
//   - the source and header paths: relative, without '.' or '..' parts (format/tree_path.hpp), each once;
//   - include directories: "." or such a path;
//   - options: each one a row of the option table passes to NVRTC, spelled as a build spells it
//     (option_reader.hpp's nvrtc_spelling: "-DN=4", "-UX", "--std=c++17", "--maxrregcount=32");
//     a --pre-include names a carried file by a relative path, found as NVRTC found it in the build
//     (whose working directory was the tree's root): under the root, then under each include
//     directory in order. Whatever the table refuses (--create-pch, --time, -fdevice-time-trace, -I,
//     ...) or does not know is refused;
//   - link options: one the table's translation of such an option gives nvJitLink (link_spellings:
//     "-ftz=1", "-Xptxas=-O3"), so not -time=;
//   - kernel names: qualified C++ names ("ops::scale", "(anonymous namespace)::k"), since NVRTC
//     compiles the name expressions made from them;
//   - what laying its files out writes (each file's text, once per path: a text several paths name
//     is written for each, as NVRTC's #pragma once tells files apart by identity, so hard links would
//     change what compiles): at most max_carried_tree_bytes(the package's size).
#pragma once

#include "format/package_reader.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::options {

// A carried unit's values, as the package holds them.
struct CarriedValues {
  std::string program;                   // the source's path in the tree
  std::vector<std::string> headers;      // header paths
  std::vector<std::string> include_dirs, options, link_options, kernel_names;
  std::uint64_t tree_bytes = 0;          // the sizes of its files' texts, once per path
};

// The values of carried record `record` of `reader` (its text sizes from SOURCE_TEXTS: nothing is decoded).
CarriedValues carried_values(const format::PackageReader& reader, std::uint32_t record);

// The most a run-time compile of one carried unit decodes and writes, for a package of
// `package_size` bytes: what its images may decode to (format/limits.hpp: 1024 times the file), and
// never more than 256 MiB (nine times the CUDA 13 toolkit's whole include directory).
inline constexpr std::uint64_t k_max_carried_tree_bytes = std::uint64_t{256} << 20;
std::uint64_t max_carried_tree_bytes(std::uint64_t package_size);

// Every problem of a unit carried in a package of `package_size` bytes, each naming the value:
// "carried option '--create-pch=pch' is set by Kiln, which ...".
std::vector<std::string> carried_problems(const CarriedValues& unit, std::uint64_t package_size);

// The carried file a --pre-include value names (its tree path), or nothing.
std::optional<std::string> pre_included_file(const CarriedValues& unit, std::string_view value);

// The value of `option` if it is a --pre-include (any spelling), else nothing.
std::optional<std::string> pre_include_value(const std::string& option);

}  // namespace kiln::options
