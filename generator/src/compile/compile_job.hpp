// One compile: a source for one target, and what came of it. Plain data, passed between the build
// (parent) and its worker processes, so it serializes to bytes.
#pragma once

#include <cstddef>
#include "format/target.hpp"
#include "util/result.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kiln::compile {

// NVRTC compiles device-only sources in-process. Sources with host code (cuda_runtime.h, <<<>>>,
// printf in host functions), or that NVRTC rejects (a C++ standard header), go to nvcc, run as a
// child process, which compiles their device side. Both give LTO-IR that nvJitLink links.
enum class Compiler { nvrtc, nvcc };

// Where a name expression came from (a manifest line, a launch, a runtime request): nvcc's errors
// about an expression point there. `file` is relative to the job's root, or absolute.
struct Origin {
  std::string file;
  int line = 0;
  int column = 0;                              // 0: unknown
  // What the name is where its file is no list of names (a kiln_add_cache() call, for a manifest
  // generated from one): "INSTANTIATE 'scale<float>' of cache 'k'". Errors about it say so. "": none.
  std::string label = {};
  bool operator==(const Origin&) const = default;
};

struct CompileJob {
  std::filesystem::path root;                  // manifest directory; the worker runs here
  std::string source;                          // relative to root: the NVRTC program name
  std::string display_prefix;                  // prepended to root-relative paths in messages
  Location manifest_entry;                     // the source's entry ("p/kiln.toml", line 7): errors about it point there
  std::string manifest_file;                   // the manifest as Origin::file names it (manifest entries)
  std::string target;                          // "sm_90a", "compute_75"
  std::vector<std::string> name_expressions;   // kernels to instantiate: "block_sum<float, 256>"
  std::vector<std::string> variables;          // variables to keep: "coeffs" (asked as "&coeffs")
  std::vector<std::string> nvrtc_options;      // -I, -D and user options, in order
  std::vector<std::string> link_options;       // user options nvJitLink needs too (-lineinfo, -ftz=...)
  // -Xptxas=-v: kiln build notes the resources of the cubin's kernels (cli/resource_notes.hpp). The
  // compile's options carry the -v itself (so the key has it); this keeps nvJitLink's info log, where
  // ptxas's report comes back, in the output's log (compile/ptxas_report.hpp).
  bool ptxas_verbose = false;
  std::filesystem::path trace_file;            // where NVRTC writes its time trace (absolute)
  Compiler compiler = Compiler::nvrtc;
  std::vector<Origin> expression_origins;      // parallel to name_expressions, or empty
  // Symbols nvJitLink must keep besides `variables` (-variables-used): __managed__ variables, which
  // NVRTC refuses as name expressions, and for nvcc every variable whose symbol is known.
  std::vector<std::string> keep_symbols;
  // nvcc jobs: whether nvJitLink may drop the variables not in keep_symbols (every variable the host
  // may ask for has a known symbol); otherwise every variable is kept.
  bool trim_variables = true;
  // An image part after the first (plan/image_parts.hpp): nvJitLink keeps only the kernels the name
  // expressions lower to (-kernels-used), dropping the source's other kernels, which the first part holds.
  bool link_named_kernels_only = false;
  std::filesystem::path nvcc;                  // nvcc jobs: the nvcc to run
  std::vector<std::string> nvcc_options;       // nvcc jobs: -I, -D and the user options nvcc shares
  std::filesystem::path work_dir;              // nvcc jobs: a directory for this job alone (absolute)
  // The kernels and kernel templates the scan found in the source ("mylib::block_sum"): what a
  // misspelt name expression most likely meant. Not an input of the compile (no part of its key).
  std::vector<std::string> known_kernels;
  std::string unit;                            // the unit's name in the package: source, variant or link group
  // A device link group's job: each member (a source's own job, with `relocatable`) compiles to LTO-IR,
  // and one nvJitLink links them all for this target. `source` is then the group's name, no file.
  std::vector<CompileJob> members;
  bool relocatable = false;                    // a member: -rdc=true, stop at LTO-IR (compile_group links)
  bool nvcc_fallback = false;                  // a member NVRTC rejects goes to nvcc (nvcc fields are set)
  std::filesystem::path device_runtime;        // link groups: libcudadevrt.a, for dynamic parallelism
  // NVRTC's precompiled header, shared by jobs that parse the same headers (shared_pch.hpp): made
  // at create_pch by a group's first job, read from use_pch by the others. Not inputs of the
  // compile (no part of its key): NVRTC's output is the same with or without.
  std::filesystem::path create_pch;
  std::filesystem::path use_pch;
  // NVRTC jobs of units nvcc cannot compile (-default-device): where Kiln's JIT-safe standard headers
  // are written (jit_safe_headers.hpp), last on NVRTC's include path. Not part of the key (the
  // headers' digest is); "" for every other job.
  std::filesystem::path jit_safe_dir;
};

struct LoweredName {
  std::string expression;                      // as asked: "block_sum<float, 256>" or "&coeffs"
  std::string lowered;                         // "_Z9block_sumIfLi256EEvPKT_PS0_i", "coeffs"
};

struct CompileOutput {
  bool ok = false;
  std::string log;                             // diagnostics with display paths; warnings on success
  std::vector<std::byte> image;                // cubin, or PTX with its terminating NUL
  std::vector<LoweredName> lowered_names;
  std::vector<std::string> headers;            // every header NVRTC opened, as it named them
  bool headers_unknown = false;                // NVRTC's time trace could not be read: `headers` says
                                               // nothing, so the output is not cached
  double seconds = 0;
  bool from_cache = false;                     // set by the cached runner on a hit; never serialized
  double recorded_seconds = 0;                 // a hit: `seconds` of the compile that stored it (the
                                               // entry's; `seconds` is then 0); never serialized
  bool compiled_early = false;                 // compiled while the scan ran (build/speculation.hpp); never serialized
  bool used_pch = false;                       // NVRTC read a shared precompiled header (shared_pch.hpp);
                                               // never serialized with the output (the batch carries it)
};

// Where Kiln reports its own failures in a job (not its compiler's): the source as messages show it
// ("p/kernels/a.cu"), and the target.
Location job_location(const CompileJob& job);

// A failure of Kiln's at `where` added to `log` on a line of its own, printed as a compiler's would be.
void add_failure(std::string& log, const Location& where, std::string_view message);

// The job's parsed target; nothing, with `out.log` naming the source and the bad string, if it is
// not a target. The first step of every compiler.
std::optional<format::Target> job_target(const CompileJob& job, CompileOutput& out);

// A compile's time in whole microseconds, rounded: how the cache stores it and how compile times
// files write it, so that a time read back from the cache writes the same number as when measured.
std::uint64_t whole_microseconds(double seconds);

std::vector<std::byte> serialize(const CompileOutput& output);
// Returns false if `bytes` is not a complete serialized CompileOutput.
bool deserialize(const std::vector<std::byte>& bytes, CompileOutput& output);

}  // namespace kiln::compile
