// Serializes a package from plain data. The writer owns every ordering decision (sorted tables,
// deduplicated strings, aligned sections), so equal contents always give byte-identical files.
#pragma once

#include "format/layout.hpp"
#include "util/result.hpp"

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
  std::string source;                    // the unit's name: a source's relative path, or a
                                         // variant's or link group's name
  std::vector<PackageImage> images;      // one per target, any order
  // The unit's sources when they are not just its name (UNIT_SOURCES): a link group's members, any
  // order, or with `variant` the one source the variant compiles again. Empty: the name is the
  // unit's one source.
  std::vector<std::string> sources = {};
  bool variant = false;
};

struct PackageKernel {
  // As stored: the symbol, or for a variant kernel (flags has k_kernel_variant) "<variant>/<symbol>".
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

// A unit's sources, carried so that the runtime can compile more of its kernels
// (CARRIED_UNITS). Paths are the build's tree: relative, '/'-separated, no "." or ".." part.
struct PackageCarriedFile {
  std::string path;
  std::string text;
};

struct PackageCarriedUnit {
  std::string unit_source;               // which unit (PackageUnit::source)
  PackageCarriedFile source;             // its source: path (NVRTC's program name) and text
  std::vector<PackageCarriedFile> headers;   // every header its build read, any order
  std::vector<std::string> include_dirs;     // directories of the tree, in the build's order
  std::vector<std::string> options;          // NVRTC options other than -I (-D, -std=...), in order
  std::vector<std::string> link_options;     // nvJitLink's, in order
  std::vector<std::string> kernel_templates; // kernels and kernel templates the source declares
  std::string nvrtc_version;                 // "13.0"
};

struct PackageContents {
  std::vector<std::string> targets;      // target strings, any order
  std::vector<PackageUnit> units;
  std::vector<PackageKernel> kernels;
  std::vector<PackageVariable> variables;
  std::vector<PackageSource> sources;
  std::vector<std::pair<std::string, std::string>> metadata;
  std::vector<PackageCarriedUnit> carried = {};
};

struct WriteOptions {
  bool compress = true;                  // zstd an image when that makes it smaller
  // zstd carried source texts when that makes them smaller. Apart from `compress`: images are often
  // left raw for load time, while texts compress tenfold and are decoded only to compile.
  bool compress_texts = true;
  // Texts are megabytes where images are kilobytes (the example's block_sum.cu reads 5.3 MB of CUB
  // and libcu++ headers): level 19 takes 7 s for 853 KB, level 9 0.1 s for 873 KB (measured).
  int text_compression_level = 9;
  int compression_level = 19;
};

// The package's bytes. Refuses (INVALID_ARGUMENT, the message naming what) contents that break an
// invariant the reader relies on: an unknown target or unit, two images of one unit for one target,
// one name claimed by two kernels, a lowered name given twice, a variable name given twice, a kernel
// target its unit has no image for, a variant flag without a "<variant>/<symbol>" lowered name or a
// '/' without the flag, a unit source that is empty or given twice, a variant of other than one
// source; a carried unit that names no unit or is carried twice, a carried path that is empty,
// absolute or has a "." or ".." part, a header path given twice or equal to the source's, a carried
// string that is empty; a string holding a NUL byte.
Result<std::vector<std::byte>> write_package(const PackageContents& contents, const WriteOptions& options = {});

}  // namespace kiln::format
