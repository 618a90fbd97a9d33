#include "compile/nvrtc_compiler.hpp"

#include "compile/diagnostics.hpp"
#include "compile/jit_safe_headers.hpp"
#include "compile/lto_link.hpp"
#include "compile/name_errors.hpp"
#include "compile/nvrtc_library.hpp"
#include "format/target.hpp"
#include "nvrtc/compiler_handles.hpp"
#include "nvrtc/time_trace.hpp"
#include "util/diagnostic.hpp"
#include "util/file_io.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <system_error>

namespace kiln::compile {

namespace {

std::vector<const char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<const char*> out;
  out.reserve(strings.size());
  for (const std::string& s : strings) out.push_back(s.c_str());
  return out;
}

// NVRTC's lines about precompiled headers ("unit.cu": creating / using precompiled header file
// "..."), which are Kiln's business, not the user's: taken out, noting whether one was used.
std::string strip_pch_messages(const std::string& log, bool& used) {
  std::string kept;
  std::size_t start = 0;
  while (start < log.size()) {
    std::size_t end = log.find('\n', start);
    end = end == std::string::npos ? log.size() : end + 1;
    const std::string_view line(log.data() + start, end - start);
    const bool using_pch = line.find(": using precompiled header file \"") != std::string_view::npos;
    used = used || using_pch;
    if (!using_pch && line.find(": creating precompiled header file \"") == std::string_view::npos) kept += line;
    start = end;
  }
  // The message is followed by an empty line; a log of nothing else is empty.
  return kept.find_first_not_of("\r\n") == std::string::npos ? std::string() : kept;
}

std::vector<std::byte> to_bytes(const std::string& text, bool keep_nul) {
  std::vector<std::byte> out(text.size() + (keep_nul ? 1 : 0), std::byte{0});
  std::memcpy(out.data(), text.data(), text.size());
  return out;
}

// The PTX nvJitLink emits for compute_XXf says ".target sm_XX": it drops the family suffix (measured
// with nvJitLink 13.0). NVRTC's own PTX keeps it, so family PTX comes straight from NVRTC, untrimmed.
bool ptx_from_nvrtc(const format::Target& target) {
  return target.kind == format::TargetKind::ptx && target.variant == format::TargetVariant::family;
}

}  // namespace

CompileOutput compile_job(const CompileJob& job) {
  const auto start = std::chrono::steady_clock::now();
  CompileOutput out;
  const Location where = job_location(job);
  const std::optional<format::Target> target = job_target(job, out);
  if (!target) return out;
  const std::optional<std::string> source = read_text_file(job.root / job.source);
  if (!source) {
    out.log = diagnostic(where, "error", "cannot read the source file");
    return out;
  }

  std::vector<std::string> options = {"-arch=" + job.target};
  if (!ptx_from_nvrtc(*target)) options.push_back("-dlto");
  if (job.relocatable) options.push_back("-rdc=true");   // a link group's member: compile_group links it
  // A fixed seed and program name make internal-linkage symbol names, and so the output, reproducible.
  // A run-time compile of the unit's carried sources passes the same seed (rtc/compile_keys.hpp).
  options.push_back("-frandom-seed=" + job.source);
  options.push_back("-fdevice-time-trace=" + job.trace_file.string());
  options.insert(options.end(), job.nvrtc_options.begin(), job.nvrtc_options.end());
  if (!job.jit_safe_dir.empty()) {
    if (Status s = write_jit_safe_headers(job.jit_safe_dir); !s) {
      out.log = diagnostic(where, "error", s.error().message);
      return out;
    }
    options.push_back("-I" + job.jit_safe_dir.string());   // last: the user's headers come first
  }
  if (!job.create_pch.empty() || !job.use_pch.empty()) {
    options.push_back(job.create_pch.empty() ? "-use-pch=" + job.use_pch.string() : "-create-pch=" + job.create_pch.string());
    // No warning when a PCH does not fit (629: other options, 630: other leading directives): NVRTC
    // then parses the headers. Its "using precompiled header" line says whether it did not; Kiln
    // takes that line out of the log (strip_pch_messages).
    options.push_back("-pch-messages=true");
    options.push_back("-diag-suppress=629,630");
  }

  // NVRTC would read only part of the source, silently: nvcc compiles it instead (compile_phase.hpp).
  if (Status whole = check_nvrtc_reads_all(*source, where); !whole) {
    out.log = diagnostic(whole.error());
    return out;
  }
  const Result<const jit::CompilerApi*> api = nvrtc_api();
  if (!api) {
    out.log = diagnostic(where, "error", api.error().message);
    return out;
  }
  const jit::NvrtcApi& nvrtc = (*api)->nvrtc;
  jit::nvrtcProgram raw = nullptr;
  if (nvrtc.create_program(&raw, source->c_str(), job.source.c_str(), 0, nullptr, nullptr) != 0) {
    out.log = diagnostic(where, "error", "NVRTC could not create a program");
    return out;
  }
  const jit::ProgramOwner program(nvrtc, raw);
  std::vector<std::string> expressions = job.name_expressions;
  for (const std::string& v : job.variables) expressions.push_back("&" + v);
  for (const std::string& e : expressions) nvrtc.add_name_expression(raw, e.c_str());

  const std::vector<const char*> argv = c_strings(options);
  const jit::nvrtcResult compiled = nvrtc.compile_program(raw, static_cast<int>(argv.size()), argv.data());
  out.log = rewrite_diagnostics(strip_pch_messages(jit::program_log(nvrtc, raw), out.used_pch), job.display_prefix,
                                job.root);
  // NVRTC reports a bad name expression against a virtual file; point where the expression came from.
  if (out.log.find("__nv_name_map") != std::string::npos) out.log = explain_name_errors(out.log, job);

  // NVRTC names the headers it opened only in its time trace. None to read, and the headers are
  // unknown: not an empty list, which the cache and the depfile would take for "reads no header".
  const std::filesystem::path trace = jit::trace_output_path(job.trace_file.string());
  Result<std::vector<std::string>> headers = jit::headers_in_trace_file(job.trace_file.string());
  if (headers) out.headers = std::move(*headers);
  out.headers_unknown = !headers;
  // Kiln's own headers are inputs through the key's digest of them, not by the scratch path they lie at.
  if (!job.jit_safe_dir.empty())
    std::erase_if(out.headers, [&](const std::string& h) { return std::filesystem::path(h).parent_path() == job.jit_safe_dir; });
  std::error_code ignored;
  std::filesystem::remove(trace, ignored);

  if (compiled != 0) {
    if (out.log.empty()) out.log = diagnostic(where, "error", nvrtc.error_string(compiled));
    return out;
  }

  std::vector<LoweredName> variables;
  for (std::size_t i = 0; i < expressions.size(); ++i) {
    const char* lowered = nullptr;
    if (nvrtc.get_lowered_name(raw, expressions[i].c_str(), &lowered) != 0 || !lowered) {
      add_failure(out.log, where, "no symbol for '" + expressions[i] + "'");
      return out;
    }
    LoweredName name{expressions[i], lowered};
    if (i >= job.name_expressions.size()) variables.push_back(name);
    out.lowered_names.push_back(std::move(name));
  }

  if (ptx_from_nvrtc(*target)) {
    std::size_t size = 0;
    nvrtc.get_ptx_size(raw, &size);
    std::string ptx(size, '\0');
    nvrtc.get_ptx(raw, ptx.data());
    out.image = to_bytes(ptx.c_str(), /*keep_nul=*/true);
  } else {
    std::size_t size = 0;
    nvrtc.get_ltoir_size(raw, &size);
    std::vector<std::byte> ltoir(size);
    nvrtc.get_ltoir(raw, reinterpret_cast<char*>(ltoir.data()));
    if (job.relocatable) {
      out.image = std::move(ltoir);    // LTO-IR: the group's link makes the image
    } else {
      LinkRequest request{{{ltoir, LinkInput::ltoir, job.source}}, job.keep_symbols, true};
      for (const LoweredName& v : variables) request.keep_symbols.push_back(v.lowered);
      if (job.link_named_kernels_only)
        for (std::size_t i = 0; i < job.name_expressions.size(); ++i)
          request.kernels_used.push_back(out.lowered_names[i].lowered);
      if (!link_lto(job, *target, request, out)) return out;
    }
  }
  if (out.headers_unknown) {
    if (!out.log.empty() && out.log.back() != '\n') out.log += '\n';
    out.log += diagnostic(where, "warning",
                          "NVRTC's time trace, which names the headers it opened, could not be read (" + trace.string() +
                          "): they are not in the depfile, and this compile is not cached");
  }
  out.ok = true;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace kiln::compile
