#include "compile/compile_key.hpp"

#include "compile/child_process.hpp"
#include "compile/jit_safe_headers.hpp"
#include "util/file_io.hpp"
#include "util/hasher.hpp"

#include <cstdlib>

namespace kiln::compile {

namespace fs = std::filesystem;

namespace {

// Replaces every occurrence of `from` (an absolute directory) in `text` with `to`.
std::string replace_dir(std::string text, const std::string& from, const std::string& to) {
  if (from.empty() || from == "/") return text;
  std::size_t at = text.find(from);
  while (at != std::string::npos) {
    const std::size_t end = at + from.size();
    // Only whole directories: /a/cuda must not match inside /a/cuda-12.
    if (end < text.size() && text[end] != '/') {
      at = text.find(from, at + 1);
      continue;
    }
    text.replace(at, from.size(), to);
    at = text.find(from, at + to.size());
  }
  return text;
}

std::string tokenize_option(const std::string& option, const fs::path& root, const fs::path& cuda) {
  const std::string r = root.lexically_normal().string(), c = cuda.lexically_normal().string();
  // The longer first: a toolkit inside the project (or the reverse) keeps its own token.
  if (r.size() >= c.size()) return replace_dir(replace_dir(option, r, "<root>"), c, "<cuda>");
  return replace_dir(replace_dir(option, c, "<cuda>"), r, "<root>");
}

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

std::string tokenize_path(const std::string& path, const fs::path& root, const fs::path& cuda) {
  const fs::path p(path);
  if (!p.is_absolute()) return path;
  for (const auto& [dir, token] : {std::pair{cuda, "<cuda>"}, std::pair{root, "<root>"}}) {
    const fs::path relative = p.lexically_relative(dir);
    if (!dir.empty() && !relative.empty() && *relative.begin() != "..") return std::string(token) + "/" + relative.string();
  }
  return path;
}

std::string expand_path(const std::string& token, const fs::path& root, const fs::path& cuda) {
  if (token.starts_with("<cuda>/")) return (cuda / token.substr(7)).string();
  if (token.starts_with("<root>/")) return (root / token.substr(7)).string();
  return token;
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
  const fs::path& cuda = context.cuda_root;
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
    for (const std::string& o : job.link_options) h.add("link_option", tokenize_option(o, job.root, cuda));
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
  for (const std::string& o : job.nvrtc_options) h.add("nvrtc_option", tokenize_option(o, job.root, cuda));
  for (const std::string& o : job.link_options) h.add("link_option", tokenize_option(o, job.root, cuda));
  for (const std::string& o : job.nvcc_options) h.add("nvcc_option", tokenize_option(o, job.root, cuda));
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
