// The last step of every trimmed image: nvJitLink links a unit's LTO-IR (NVRTC's -dlto output, or
// the fatbin nvcc -dlto -dc writes) into a cubin or PTX for one target, with
// -optimize-unused-variables so that device variables nothing refers to are dropped: libcu++'s
// constexpr members under NVRTC, Thrust's placeholders under nvcc (scanner-notes.md, "Image size").
#pragma once

#include "compile/compile_job.hpp"
#include "format/target.hpp"

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace kiln::compile {

enum class LinkInput { ltoir, fatbin };

struct LinkData {
  std::span<const std::byte> bytes;
  LinkInput kind = LinkInput::ltoir;
  std::string name;                    // for nvJitLink's messages: the source it came from
};

struct LinkRequest {
  std::vector<LinkData> inputs;        // one for a unit; a link group's members for a group
  // Symbols that must keep their names (-variables-used): every variable the host may ask for.
  std::vector<std::string> keep_symbols;
  // false: link without -optimize-unused-variables, keeping every variable (a unit whose variables'
  // symbols are not all known).
  bool trim_variables = true;
  // Libraries to link too (libcudadevrt.a for dynamic parallelism); archive members are pulled in
  // only when something refers to them. Not with PTX output: nvJitLink's -ptx takes LTO-IR alone.
  std::vector<std::filesystem::path> libraries = {};
  // Kernels to keep (-kernels-used), all others dropped; empty: every kernel is kept.
  std::vector<std::string> kernels_used = {};
};

// Links for `target` with the job's link options; on failure returns false with out.log saying why.
bool link_lto(const CompileJob& job, const format::Target& target, const LinkRequest& request, CompileOutput& out);

}  // namespace kiln::compile
