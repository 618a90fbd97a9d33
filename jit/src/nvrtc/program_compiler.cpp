#include "nvrtc/program_compiler.hpp"

#include "nvrtc/compiler_handles.hpp"
#include "nvrtc/time_trace.hpp"
#include "platform/files.hpp"
#include "platform/text.hpp"
#include "util/diagnostic.hpp"

#include <chrono>
#include <cstring>
#include <filesystem>
#include <optional>

namespace kiln::jit {

namespace {

// Where NVRTC writes its time trace (<base>.json): a directory of the compile's own (mkdtemp, 0700),
// removed with what NVRTC wrote. Not a name beside others in a shared temporary directory: NVRTC
// creates <base>.json as any file, so another user could have made it a directory (NVRTC aborts the
// process) or a FIFO (the compile waits for ever) before it was written.
class TraceFile {
public:
  TraceFile() {
    const char* tmp = platform::environment("TMPDIR");
    std::string pattern = (tmp && *tmp ? std::string(tmp) : platform::default_temporary_directory().string()) +
                          "/kiln-trace-XXXXXX";
    if (platform::make_private_directory(pattern)) m_directory = pattern;
  }
  ~TraceFile() {
    std::error_code ignored;
    if (!m_directory.empty()) std::filesystem::remove_all(m_directory, ignored);
  }
  TraceFile(const TraceFile&) = delete;
  TraceFile& operator=(const TraceFile&) = delete;
  std::string base() const { return m_directory.empty() ? std::string() : m_directory + "/trace"; }   // empty: no trace
  // The headers the trace names; nothing where there is no trace to read (headers_in_trace_file).
  std::optional<std::vector<std::string>> headers() const {
    if (m_directory.empty()) return std::nullopt;
    Result<std::vector<std::string>> names = headers_in_trace_file(base());
    if (!names) return std::nullopt;
    return std::move(*names);
  }

private:
  std::string m_directory;
};

void append(std::string& log, const std::string& line) {
  if (line.empty()) return;
  if (!log.empty() && log.back() != '\n') log += '\n';
  log += line;
}

}  // namespace

ProgramOutput compile_program(const CompilerApi& api, const ProgramInput& input) {
  const auto start = std::chrono::steady_clock::now();
  ProgramOutput out;
  std::vector<const char*> header_texts, header_names;
  for (const auto& [name, text] : input.headers) {
    header_names.push_back(name.c_str());
    header_texts.push_back(text.c_str());
  }
  nvrtcProgram raw = nullptr;
  const nvrtcResult created = api.nvrtc.create_program(&raw, input.source.c_str(), input.name.c_str(),
                                                       static_cast<int>(header_texts.size()), header_texts.data(),
                                                       header_names.data());
  if (created != 0) {
    out.log =
        diagnostic(place(input.name), "error", std::string("nvrtcCreateProgram: ") + api.nvrtc.error_string(created));
    return out;
  }
  const ProgramOwner program(api.nvrtc, raw);

  std::vector<std::string> expressions = input.kernels;
  for (const std::string& v : input.variables) expressions.push_back("&" + v);
  for (const std::string& e : expressions) api.nvrtc.add_name_expression(raw, e.c_str());

  // Every compile traces into a temporary file, not only those that record headers: after a traced
  // compile that fails, NVRTC 13.0 goes on tracing and wrote the next compile's trace to ".json" in
  // the working directory, which is no place of Kiln's to write (FallbackTest.CompilesWrite...).
  TraceFile trace;
  std::vector<std::string> options = {"-arch=" + input.target, "-dlto"};
  if (!input.random_seed.empty()) options.push_back("-frandom-seed=" + input.random_seed);
  if (!trace.base().empty()) options.push_back("-fdevice-time-trace=" + trace.base());
  options.insert(options.end(), input.options.begin(), input.options.end());
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());
  const nvrtcResult compiled = api.nvrtc.compile_program(raw, static_cast<int>(argv.size()), argv.data());
  out.log = program_log(api.nvrtc, raw);
  // Headers asked for and no trace to tell them (none made, or an option of the caller's sent it
  // elsewhere): not an empty list, which a cache would take for "reads no header".
  if (input.record_headers) {
    if (std::optional<std::vector<std::string>> headers = trace.headers()) {
      out.headers = std::move(*headers);
    } else {
      out.headers_unknown = true;
    }
  }
  if (compiled != 0) {
    append(out.log, diagnostic(place(input.name), "error", std::string("NVRTC: ") + api.nvrtc.error_string(compiled)));
    return out;
  }
  std::vector<std::string> keep;
  for (std::size_t i = 0; i < expressions.size(); ++i) {
    const char* lowered = nullptr;
    if (api.nvrtc.get_lowered_name(raw, expressions[i].c_str(), &lowered) != 0 || !lowered) {
      append(out.log, diagnostic(place(input.name), "error", "NVRTC gives no symbol for '" + expressions[i] + "'"));
      return out;
    }
    if (i < input.kernels.size()) {
      out.kernel_symbols.emplace_back(lowered);
    } else {
      out.variable_symbols.emplace_back(lowered);
      keep.push_back("-variables-used=" + std::string(lowered));
    }
  }
  std::size_t size = 0;
  api.nvrtc.get_ltoir_size(raw, &size);
  std::vector<char> ltoir(size);
  api.nvrtc.get_ltoir(raw, ltoir.data());

  std::vector<std::string> link_options = {"-arch=" + input.target, "-lto", "-optimize-unused-variables"};
  link_options.insert(link_options.end(), keep.begin(), keep.end());
  link_options.insert(link_options.end(), input.link_options.begin(), input.link_options.end());
  std::vector<const char*> link_argv;
  for (const std::string& o : link_options) link_argv.push_back(o.c_str());
  nvJitLinkHandle linker = nullptr;
  if (api.nvjitlink.create(&linker, static_cast<std::uint32_t>(link_argv.size()), link_argv.data()) != 0) {
    append(out.log, diagnostic(place(input.name), "error", "nvJitLink refused the link options for " + input.target));
    return out;
  }
  const LinkerOwner linker_owner(api.nvjitlink, linker);
  if (api.nvjitlink.add_data(linker, k_nvjitlink_input_ltoir, ltoir.data(), ltoir.size(), input.name.c_str()) != 0 ||
      api.nvjitlink.complete(linker) != 0) {
    append(out.log, diagnostic(place(input.name), "error",
                               "linking for " + input.target + " failed:\n" + linker_log(api.nvjitlink, linker)));
    return out;
  }
  api.nvjitlink.get_linked_cubin_size(linker, &size);
  out.image.resize(size);
  api.nvjitlink.get_linked_cubin(linker, out.image.data());
  out.ok = true;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

}  // namespace kiln::jit
