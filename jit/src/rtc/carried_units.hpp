// What run-time compilation needs of a unit whose sources the package carries (format: CARRIED_UNITS),
// and which carried sources may declare a requested kernel.
#pragma once

#include "format/package_reader.hpp"
#include "options/carried_rules.hpp"
#include "rtc/compile_keys.hpp"
#include "rtc/source_tree.hpp"
#include "util/result.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::rtc {

struct CarriedUnit {
  std::uint32_t record = 0;                   // index of its carried record
  std::string unit;                           // the unit's name in the package
  CarriedInputs inputs;                       // by content: the key's part
  std::vector<std::string> kernel_templates;  // kernels and kernel templates its source declares
  std::string nvrtc_version;                  // the build's: "13.0"
};

// Every carried unit; with `declarations_only`, only what tells which kernels each can compile (its
// program, kernels and NVRTC version: no header list, options or hashes), which a miss reads first.
std::vector<CarriedUnit> carried_units(const format::PackageReader& reader, bool declarations_only = false);
// The carried unit of record `record`, the same way.
CarriedUnit carried_unit(const format::PackageReader& reader, std::uint32_t record, bool declarations_only = false);
// Whether the package carries any source, and whether it carries unit `unit`'s (cheap: no decoding).
bool carries_sources(const format::PackageReader& reader);
bool carries_unit(const format::PackageReader& reader, std::uint32_t unit);

// The unit's files, decoded and checked: each text once, however many paths name it (the files'
// views point into `texts`). The source is files[0], then the headers in the order carried_units
// listed them.
struct CarriedFiles {
  std::vector<std::string> texts;
  std::vector<TreeFile> files;
};
Result<CarriedFiles> carried_files(const format::PackageReader& reader, const CarriedUnit& unit);

struct Candidate {
  const CarriedUnit* unit = nullptr;
  std::string expression;                     // the request, qualified as the unit declares the kernel
};

// The carried units whose kernels or kernel templates have the request's name ("block_sum<double, 512>"
// matches "block_sum" and "mylib::block_sum", qualifying the expression as the latter), in package order.
std::vector<Candidate> candidates_for(const std::vector<CarriedUnit>& units, std::string_view request);

}  // namespace kiln::rtc
