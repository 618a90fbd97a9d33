#include "compile/link_group.hpp"

#include "compile/lto_link.hpp"
#include "compile/nvcc_compiler.hpp"
#include "compile/nvrtc_compiler.hpp"
#include "format/target.hpp"
#include "util/diagnostic.hpp"

#include <chrono>
#include <string_view>

namespace kiln::compile {

namespace {

void append(std::string& log, const std::string& more) {
  if (more.empty()) return;
  if (!log.empty() && log.back() != '\n') log += '\n';
  log += more;
}

struct MemberOutput {
  CompileOutput out;
  LinkInput kind = LinkInput::ltoir;   // NVRTC's LTO-IR, or nvcc's fatbin holding it
};

// The member's LTO-IR, by the compiler the plan chose; NVRTC's rejection tries nvcc once, as a
// unit's does (build/compile_phase.cpp), so that a group may mix NVRTC- and nvcc-routed sources.
MemberOutput compile_member(const CompileJob& member) {
  if (member.compiler == Compiler::nvcc) return {compile_with_nvcc(member), LinkInput::fatbin};
  CompileOutput out = compile_job(member);
  if (out.ok || !member.nvcc_fallback) return {std::move(out), LinkInput::ltoir};
  CompileJob with_nvcc = member;
  with_nvcc.compiler = Compiler::nvcc;
  CompileOutput retried = compile_with_nvcc(with_nvcc);
  if (retried.ok) return {std::move(retried), LinkInput::fatbin};
  append(out.log, diagnostic(job_location(member), "note", "nvcc could not compile it either:"));
  append(out.log, retried.log);
  return {std::move(out), LinkInput::ltoir};
}

// Unresolved functions in linked PTX (".extern .func cudaLaunchDeviceV2"): the driver, loading the
// PTX alone, could not resolve them.
bool has_unresolved_functions(const std::vector<std::byte>& ptx) {
  const std::string_view text(reinterpret_cast<const char*>(ptx.data()), ptx.size());
  return text.find(".extern .func") != std::string_view::npos;
}

}  // namespace

CompileOutput compile_group(const CompileJob& group) {
  const auto start = std::chrono::steady_clock::now();
  CompileOutput out;
  const std::optional<format::Target> target = job_target(group, out);
  if (!target) return out;
  std::vector<MemberOutput> members;
  LinkRequest request;
  request.trim_variables = group.trim_variables;
  for (const CompileJob& member : group.members) {
    MemberOutput compiled = compile_member(member);
    append(out.log, compiled.out.log);
    if (!compiled.out.ok) return out;
    const CompileOutput& o = compiled.out;
    out.headers.insert(out.headers.end(), o.headers.begin(), o.headers.end());
    out.headers_unknown = out.headers_unknown || o.headers_unknown;
    out.lowered_names.insert(out.lowered_names.end(), o.lowered_names.begin(), o.lowered_names.end());
    // Variables the host may ask for keep their symbols through the link, whichever member has them.
    request.keep_symbols.insert(request.keep_symbols.end(), member.keep_symbols.begin(), member.keep_symbols.end());
    for (const LoweredName& name : o.lowered_names)
      if (name.expression.starts_with('&')) request.keep_symbols.push_back(name.lowered);
    members.push_back(std::move(compiled));
  }
  for (std::size_t m = 0; m < members.size(); ++m)
    request.inputs.push_back({members[m].out.image, members[m].kind, group.members[m].source});

  CompileOutput linked;
  const bool ptx = target->kind == format::TargetKind::ptx;
  if (!link_lto(group, *target, request, linked)) {
    // Dynamic parallelism: the device runtime's functions are missing. A cubin can take them from
    // libcudadevrt.a (linked only when needed: it adds ~200 KB to every image that holds it).
    if (ptx || group.device_runtime.empty()) {
      append(out.log, linked.log);
      return out;
    }
    CompileOutput with_runtime;
    request.libraries.push_back(group.device_runtime);
    if (!link_lto(group, *target, request, with_runtime)) {
      append(out.log, with_runtime.log);
      return out;
    }
    linked = std::move(with_runtime);
  }
  if (ptx && has_unresolved_functions(linked.image)) {
    append(out.log, diagnostic(job_location(group), "warning",
                               "no " + group.target +
                                   " image: its code calls functions the PTX cannot hold (the CUDA device runtime, "
                                   "which dynamic parallelism needs, comes as cubins only); GPUs that none of its "
                                   "cubins fit cannot run it"));
    linked.image.clear();
  }
  // What a successful link says is ptxas's -v report (link_lto keeps it only when asked): the group's
  // notes read its spills there.
  append(out.log, linked.log);
  out.image = std::move(linked.image);
  out.ok = true;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace kiln::compile
