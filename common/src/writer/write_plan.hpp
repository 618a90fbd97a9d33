// Private to the writer: the package contents checked and put in file order. Every ordering
// decision lives here, so the serializer only copies and the output cannot depend on input order.
#pragma once

#include "writer/package_writer.hpp"
#include "format/target.hpp"
#include "util/result.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace kiln::format::detail {

struct PlannedImage {
  std::uint32_t unit;                   // index into WritePlan::units
  std::uint32_t target;                 // index into WritePlan::targets
  const std::vector<std::byte>* bytes;  // the caller's image bytes
  std::uint32_t ptx_version;
};

struct PlannedKernel {
  const PackageKernel* kernel;
  std::uint32_t unit;
  std::vector<std::uint32_t> targets;   // sorted indices into WritePlan::targets; empty: every image
};

struct PlannedUnitSource {
  std::uint32_t unit;    // index into WritePlan::units
  UnitSourceRole role;
  std::string source;
};

struct PlannedName {
  std::string name;      // normalized
  std::uint32_t kernel;  // index into WritePlan::kernels
};

struct PlannedVariable {
  std::string name;  // normalized
  const PackageVariable* variable;
  std::uint32_t unit;
};

using MetadataEntry = std::pair<std::string, std::string>;

struct PlannedCarriedEntry {
  CarriedEntryKind kind;
  std::string value;
  std::uint32_t text;    // source and header: index into WritePlan::texts
};

struct PlannedCarriedUnit {
  std::uint32_t unit;    // index into WritePlan::units
  std::string nvrtc_version;
  std::vector<PlannedCarriedEntry> entries;   // in file order: source, headers by path, the rest in order
};

struct PlannedText {
  std::uint64_t content_hash;
  const std::string* text;
};

// Pointers point into the PackageContents the plan was made from, which must outlive it.
struct WritePlan {
  std::vector<Target> targets;                 // sorted, unique
  std::vector<const PackageUnit*> units;       // sorted by source
  std::vector<PlannedUnitSource> unit_sources; // sorted by (unit, source), unique
  std::vector<PlannedImage> images;            // grouped by unit in unit order, then by target
  std::vector<PlannedKernel> kernels;          // sorted by lowered name
  std::vector<PlannedName> names;              // sorted by name, unique
  std::vector<PlannedVariable> variables;      // sorted by name
  std::vector<const PackageSource*> sources;   // sorted by path, exact repeats dropped
  std::vector<const MetadataEntry*> metadata;  // sorted by key, exact repeats dropped
  std::vector<PlannedCarriedUnit> carried;     // sorted by unit
  std::vector<PlannedText> texts;              // sorted by content hash, unique
};

// A refusal of the contents the writer was handed: INVALID_ARGUMENT, the message naming the offending
// target, unit, kernel or name.
Error refused(std::string message);

// Plans contents.carried (carried_plan.cpp), after the units are planned.
Status plan_carried(const PackageContents& contents, WritePlan& plan);

// Checks the invariants package_writer.hpp lists and puts the contents in file order.
Result<WritePlan> plan_package(const PackageContents& contents);

}  // namespace kiln::format::detail
