#include "compile/compile_key.hpp"

#include "compile/child_process.hpp"
#include "compile/jit_safe_headers.hpp"
#include "util/file_io.hpp"
#include "util/hasher.hpp"

#include <cstdlib>

namespace kiln::compile {

namespace fs = std::filesystem;

namespace {

bool records_directory(const CompileJob& job) {
  for (const auto* list : {&job.nvrtc_options, &job.link_options, &job.nvcc_options})
    for (const std::string& o : *list)
      if (o == "-lineinfo" || o == "-G" || o == "-g" || o == "--generate-line-info" || o == "--device-debug")
        return true;
  return false;
}

std::string first_line_of_run(const std::vector<std::string>& argv) {
  Result<ChildOutput> out = make_child_runner()->run(argv);
  if (!out || out->exit_code != 0) return "(cannot run " + argv[0] + ")";
  return out->output;
}

}  // namespace

NamedRoots named_roots(const CompileJob& job, const CacheContext& context) {
  return {job.root, context.build_dir, context.kiln_include_dir, context.cuda_root};
}

std::string toolchain_identity(const fs::path& cuda_root, const std::string& nvrtc, const std::string& nvjitlink,
                               const std::string& kiln_version) {
  Hasher versions;
  if (Result<std::vector<std::byte>> json = read_binary_file(cuda_root / "version.json")) versions.add("json", *json);
  return "nvrtc " + nvrtc + ", nvjitlink " + nvjitlink + ", toolkit version.json " + versions.hex_digest() + ", kiln " +
         kiln_version;
}

std::string nvcc_toolchain_identity(const fs::path& nvcc) {
  std::string identity = first_line_of_run({nvcc.string(), "--version"});
  const char* ccbin = std::getenv("NVCC_CCBIN");
  const fs::path host = ccbin && *ccbin ? find_on_path(ccbin) : find_on_path("g++");
  identity += host.empty() ? "(no host compiler)" : first_line_of_run({host.string(), "--version"});
  for (const char* name : {"NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS"})
    if (const char* flags = std::getenv(name)) identity += std::string(name) + "=" + flags + "\n";
  return identity;
}

std::optional<CompileKey> compile_key(const CompileJob& job, CacheContext& context) {
  const NamedRoots roots = named_roots(job, context);
  Hasher h;
  h.add("schema", k_compile_cache_schema);
  if (!job.members.empty()) {
    // A link group: each member's own key (its source, options and names), then what the link adds.
    h.add("link_group", job.unit);
    h.add("target", job.target);
    for (const CompileJob& member : job.members) {
      const std::optional<CompileKey> key = compile_key(member, context);
      if (!key) return std::nullopt;
      h.add("member", key->hex);
    }
    for (const std::string& o : job.link_options) h.add("link_option", roots.tokenize_text(o));
    h.add("trim_variables", job.trim_variables ? "yes" : "no");
    h.add("device_runtime", job.device_runtime.empty() ? "no" : "yes");
    return CompileKey{h.hex_digest(), h.dump()};
  }
  Result<std::vector<std::byte>> source = read_binary_file(job.root / job.source);
  if (!source) return std::nullopt;
  h.add("toolchain", context.toolchain);
  h.add("compiler", job.compiler == Compiler::nvcc ? "nvcc" : "nvrtc");
  // A link group's member NVRTC rejects is compiled by nvcc inside the group's job (link_group.hpp).
  const bool may_use_nvcc = job.compiler == Compiler::nvcc || (job.relocatable && job.nvcc_fallback);
  if (job.relocatable && job.nvcc_fallback) h.add("nvcc_fallback", "yes");
  if (may_use_nvcc) {
    auto [it, added] = context.nvcc_identities.try_emplace(job.nvcc.string());
    if (added) it->second = context.nvcc_identity ? context.nvcc_identity(job.nvcc) : "";
    h.add("nvcc", it->second);
  }
  h.add("source_path", job.source);
  h.add("source", *source);
  h.add("target", job.target);
  for (const std::string& e : job.name_expressions) h.add("name_expression", e);
  for (const std::string& v : job.variables) h.add("variable", v);
  for (const std::string& s : job.keep_symbols) h.add("keep_symbol", s);
  h.add("trim_variables", job.trim_variables ? "yes" : "no");
  if (job.link_named_kernels_only) h.add("link_named_kernels_only", "yes");
  if (job.relocatable) h.add("relocatable", "yes");
  for (const std::string& o : job.nvrtc_options) h.add("nvrtc_option", roots.tokenize_text(o));
  for (const std::string& o : job.link_options) h.add("link_option", roots.tokenize_text(o));
  for (const std::string& o : job.nvcc_options) h.add("nvcc_option", roots.tokenize_text(o));
  if (!job.jit_safe_dir.empty()) h.add("jit_safe_headers", jit_safe_headers_digest());
  if (records_directory(job)) h.add("directory", fs::absolute(job.root).lexically_normal().string());
  return CompileKey{h.hex_digest(), h.dump()};
}

std::optional<CompileKey> verdict_key(const CompileJob& nvrtc_job, CacheContext& context) {
  CompileJob every_target = nvrtc_job;
  every_target.target = "(none: NVRTC's verdict on the unit, for every target)";
  return compile_key(every_target, context);
}

}  // namespace kiln::compile
