// Serializes a package from plain data. The writer owns every ordering decision (sorted tables,
// deduplicated strings, aligned sections), so equal contents always give byte-identical files.
#pragma once

#include "layout.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::format {

struct PackageImage {
  std::string target;                    // a target string; must be in PackageContents::targets
  std::vector<std::byte> bytes;          // cubin, or PTX including its terminating NUL
  std::uint32_t ptx_version = 0;         // PTX: ".version 9.0" -> 90; cubins: 0
};

struct PackageUnit {
  std::string source;                    // the unit's name: a relative path, a variant's or a link group's name
  std::vector<PackageImage> images;      // one per target, any order
  std::vector<std::string> sources = {}; // 1.2: the sources it was made of, when not just `source`
};

struct PackageKernel {
  std::string lowered_name;
  std::string canonical_name;
  std::string unit_source;               // which unit holds it (PackageUnit::source)
  std::uint32_t flags = 0;               // KernelFlags
  std::vector<ParamRecord> params;       // meaningful when flags has k_kernel_params_known
  std::vector<std::string> names;        // every name it can be asked for; normalized by the writer
  // The targets whose image of the unit holds the kernel, when not every image does (a kernel
  // guarded by __CUDA_ARCH__, CUB's per-SM namespaces); empty: every image holds it.
  std::vector<std::string> targets = {};
};

struct PackageVariable {
  std::string name;
  std::string lowered_name;
  std::string unit_source;
  VariableKind kind = VariableKind::device;
  std::uint64_t size = 0;
};

struct PackageSource {
  std::string path;
  SourceRole role = SourceRole::source;
  std::uint64_t content_hash = 0;
};

struct PackageContents {
  std::vector<std::string> targets;      // target strings, any order
  std::vector<PackageUnit> units;
  std::vector<PackageKernel> kernels;
  std::vector<PackageVariable> variables;
  std::vector<PackageSource> sources;
  std::vector<std::pair<std::string, std::string>> metadata;
};

struct ExtraSection {                    // for tests of forward compatibility: an unknown section
  std::uint32_t kind;
  std::vector<std::byte> bytes;
};

struct WriteOptions {
  bool compress = true;                  // zstd an image when that makes it smaller
  int compression_level = 19;
  // Tests write newer minors, and 1.0 files (no KERNEL_TARGETS: every kernel must be in every image).
  std::uint16_t version_minor = k_version_minor;
  std::vector<ExtraSection> extra_sections;
};

struct WriteResult {
  std::vector<std::byte> bytes;
  std::string error;                     // non-empty: the contents are inconsistent (names what)
};

// Fails (WriteResult::error) when the contents break an invariant the reader relies on: an unknown
// target or unit, two images of one unit for one target, one name claimed by two kernels, a lowered
// name given twice, a variable name given twice, a kernel target its unit has no image for.
WriteResult write_package(const PackageContents& contents, const WriteOptions& options = {});

}  // namespace kiln::format
