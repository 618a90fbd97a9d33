// What one compile unit is asked to hold, after the manifest and the scanner have had their say:
// the name expressions to build and record, and the variables to keep and record. Plain data shared
// by discovery (which finds them), the plan (which turns them into jobs) and the assembler (which
// resolves them to symbols).
#pragma once

#include "compile/compile_job.hpp"
#include "plan/finding.hpp"

#include <map>
#include <string>
#include <vector>

namespace kiln::plan {

// Where a name came from. Written in the manifest, it is the user's promise: a name that does not
// resolve, or that means two kernels, is an error. Found by the scanner (an instantiation, a
// variable) or asked for by host code (a runtime request), it is Kiln's finding: the same problems
// are warnings.
enum class NameOrigin { manifest, discovered, request };

struct PlannedName {
  std::string expression = {};   // as NVRTC gets it: "block_sum<float, 256u>"; variables without '&'
  NameOrigin origin = NameOrigin::manifest;
  compile::Origin where = {};    // manifest line, launch, request; file relative to the manifest dir
  // A request's canonical expression when the scanner resolved it ("block_sum<float, 256>"): nvcc
  // units match symbols by it when the written spelling does not demangle alike.
  std::string canonical = {};
  // How a demangler spells the symbol, where it differs (enumerators by value): nvcc units match
  // symbols by it when neither spelling above demangles alike.
  std::string symbol_form = {};
  // clang's mangling of the specialization the scanner resolved it to (scan::Instantiation::
  // mangled_name): nvcc units match symbols by it before any spelling is compared.
  std::string mangled_name = {};
  // Requests exactly as written where `expression` had to differ from them: an unnamed namespace
  // spelled out ("(anonymous namespace)::b::k", "<unnamed>::b::a"), which no compiler accepts back.
  // Recorded as names of the kernel or variable too, so the runtime finds each as written.
  std::vector<std::string> written = {};
  bool managed = false;          // a __managed__ variable: NVRTC cannot take it as a name expression
  bool internal_linkage = false; // a variable the scan saw static or in an unnamed namespace
  std::string symbol = {};       // managed variables in NVRTC units: the symbol nvJitLink keeps
  // An instantiation the source's own text makes (an explicit instantiation or specialization, a
  // launch, an address taken): the compiler builds it whichever names a program asks for, so it
  // cannot move to an image part.
  bool in_source_text = false;
};

struct PlannedUnit {
  std::string source;                   // the source file; "" for a link group
  // The unit's name in the package: its source's path, a variant's name ("f64"), or a link group's
  // ("rdc"). Kernels of a variant are recorded as "<variant>/<name>".
  std::string name;
  std::string variant;                  // set for a variant
  // A device link group: its sources, each compiled to LTO-IR with -rdc=true and linked into one
  // image per target. The group's kernels and variables are its members', together.
  std::vector<PlannedUnit> members;
  int manifest_line = 0;
  int manifest_column = 0;
  compile::Compiler compiler = compile::Compiler::nvrtc;
  // An NVRTC unit that nvcc compiles instead when NVRTC rejects it (a header NVRTC cannot open,
  // host code the scan did not see): the compiler of record decides, not the route guessed here.
  bool nvcc_fallback = false;
  // NVRTC rejected it and nvcc compiles it instead (switch_unit_to_nvcc): a device-only
  // source written for NVRTC, so nvcc lets its device code call constexpr host functions
  // (std::numeric_limits<T>::max()) as NVRTC's JIT-safe headers do (--expt-relaxed-constexpr).
  bool nvrtc_rejected = false;
  // NVRTC compiles it and nvcc cannot (-default-device): Kiln's JIT-safe standard headers end its
  // include path (compile/jit_safe_headers.hpp), so <limits> and <cmath> open.
  bool jit_safe_headers = false;
  bool scan_failed = false;             // its kernels come from the images alone
  // Left unread by the scan (plan/text_discovery.hpp): its kernels and its variables are named from
  // the image's symbols.
  bool image_only = false;
  // Its compile keeps every variable, where no scan listed those to keep: an NVRTC unit left unread,
  // unless the manifest sets 'remove_unused_variables'.
  bool keep_every_variable = false;
  std::vector<PlannedName> kernels;     // each becomes a name of the kernel it resolves to
  std::vector<PlannedName> variables;   // kept through trimming and recorded by name
  std::vector<std::string> nvrtc_options;   // -I, -D and the user's options, as NVRTC takes them
  std::vector<std::string> nvcc_options;    // the same for nvcc
  std::vector<std::string> link_options;    // the user's options nvJitLink repeats
  bool ptxas_verbose = false;               // -Xptxas=-v: kiln build notes its kernels' resources
  std::vector<std::string> kernel_names;    // from the scan: for did-you-mean in name errors
  bool carry_sources = false;               // the package carries its sources (package/carried_sources.hpp)
  // The most kernels one image of the unit may hold ('kernels_per_image'; 0: no bound), and which
  // image part this unit is: 0 the unit itself (or its first part), k >= 1 its part k + 1, named
  // "<name>#<k + 1>", whose images hold only the kernels its names resolve to (plan/image_parts.hpp).
  std::size_t kernels_per_image = 0;
  std::size_t part = 0;
};

// What scanning added to each source, before the manifest's own names are merged in.
struct SourceDiscovery {
  // The scan failed: nothing below was discovered, and the compiler alone decides which kernels the
  // unit holds (the manifest's names are still built).
  bool scan_failed = false;
  bool has_host_code = false;
  bool image_only = false;      // left unread by the scan: its kernels and variables are the image's
  std::vector<PlannedName> kernels;
  std::vector<PlannedName> variables;
  // The qualified names of the kernels and kernel templates the source defines: what a misspelt
  // name expression most likely meant.
  std::vector<std::string> kernel_names;
  // The manifest's top-level 'instantiate' and 'variables' names this source defines: the unit
  // builds and keeps them as it does its own entry's (after them).
  std::vector<PlannedName> package_kernels;
  std::vector<PlannedName> package_variables;
};

struct Discovery {
  std::map<std::string, SourceDiscovery> sources;   // by source path as in the manifest
  std::vector<Finding> findings;                    // requests that name nothing, templates never instantiated
  // Requests that name nothing of the sources scanned while another shard's were not (ScannedFile::
  // another_shards): not findings of the shard, for a unit it does not build may define them; the
  // merge, which scans every source, reports those that name nothing.
  std::size_t left_to_the_merge = 0;
  // The same for the manifest's top-level names: what no source this shard scans defines.
  std::size_t names_left_to_the_merge = 0;
  // Top-level names that no source defines (or that several sources each keep a copy of): errors,
  // at the name's place (its kiln.toml element, or the kiln_add_cache() call).
  std::vector<Finding> errors;
};

}  // namespace kiln::plan
