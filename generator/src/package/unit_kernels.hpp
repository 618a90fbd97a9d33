// What one compile unit holds, read from its images: kernels with their parameters and the targets
// whose images hold them, and variable symbols. A kernel may be missing from some images (guarded by
// __CUDA_ARCH__, or CUB's kernels in namespaces versioned per SM); where images hold it, they must
// agree on its parameters.
#pragma once

#include "format/layout.hpp"
#include "util/result.hpp"

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace kiln::package {

struct UnitImage {
  std::string target;                      // "sm_90", "compute_75"
  std::span<const std::byte> bytes;
};

struct UnitKernel {
  bool weak = false;                       // a template instantiation
  bool params_known = false;
  std::vector<format::ParamRecord> params;
  std::vector<std::string> targets;        // the targets whose images hold it, in image order
};

struct UnitVariable {
  format::VariableKind kind = format::VariableKind::device;
  std::uint64_t size = 0;                  // from the cubin's symbol, or the PTX declaration
};

struct UnitContents {
  std::map<std::string, UnitKernel> kernels;       // by lowered name
  std::map<std::string, UnitVariable> variables;   // by lowered name
  std::map<std::string, std::uint32_t> ptx_versions;  // target -> ".version" as major * 10 + minor
};

// `where` names the unit in messages ("kernels/a.cu").
Result<UnitContents> read_unit(const std::string& where, const std::vector<UnitImage>& images);

// Whether `image` reads for `target` as read_unit reads it (a cubin's ELF file, PTX text): a compile
// cache hit whose image does not is compiled again rather than fail the package.
bool image_reads(const UnitImage& image);

}  // namespace kiln::package
