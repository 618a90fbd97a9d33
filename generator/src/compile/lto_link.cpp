#include "compile/lto_link.hpp"

#include "compile/nvrtc_library.hpp"
#include "nvrtc/compiler_handles.hpp"

#include <cstring>

namespace kiln::compile {

namespace {

std::string link_arch(const format::Target& target) {
  format::Target as_sass = target;
  as_sass.kind = format::TargetKind::sass;
  return "-arch=" + as_sass.name();
}

}  // namespace

bool link_lto(const CompileJob& job, const format::Target& target, const LinkRequest& request, CompileOutput& out) {
  std::vector<std::string> options = {link_arch(target), "-lto"};
  if (request.trim_variables) options.push_back("-optimize-unused-variables");
  // Unlisted variables lose their symbols even when kernels use them, so every variable the host
  // may ask for is named here.
  for (const std::string& symbol : request.keep_symbols) options.push_back("-variables-used=" + symbol);
  for (const std::string& kernel : request.kernels_used) options.push_back("-kernels-used=" + kernel);
  if (target.kind == format::TargetKind::ptx) options.push_back("-ptx");
  options.insert(options.end(), job.link_options.begin(), job.link_options.end());
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());

  const Location where = job_location(job);
  const Result<const jit::CompilerApi*> api = nvrtc_api();
  if (!api) {
    add_failure(out.log, where, api.error().message);
    return false;
  }
  const jit::NvJitLinkApi& link = (*api)->nvjitlink;
  jit::nvJitLinkHandle raw = nullptr;
  if (link.create(&raw, static_cast<std::uint32_t>(argv.size()), argv.data()) != 0) {
    std::string joined;
    for (const std::string& o : options) joined += (joined.empty() ? "" : " ") + o;
    add_failure(out.log, where, "nvJitLink rejected the link options for " + job.target + " (" + joined + ")");
    return false;
  }
  const jit::LinkerOwner linker(link, raw);
  jit::nvJitLinkResult result = 0;
  for (const LinkData& input : request.inputs) {
    const int type = input.kind == LinkInput::fatbin ? jit::k_nvjitlink_input_fatbin : jit::k_nvjitlink_input_ltoir;
    const std::string& name = input.name.empty() ? job.source : input.name;
    if (result == 0) result = link.add_data(raw, type, input.bytes.data(), input.bytes.size(), name.c_str());
  }
  for (const std::filesystem::path& library : request.libraries)
    if (result == 0) result = link.add_file(raw, jit::k_nvjitlink_input_library, library.c_str());
  if (result == 0) result = link.complete(raw);
  if (result != 0) {
    add_failure(out.log, where, "linking for " + job.target + " failed:\n" + jit::linker_log(link, raw));
    return false;
  }
  // ptxas's -v report (-Xptxas=-v in the link options): kept in the log, which the compile cache
  // stores with the image, for kiln build's notes to read its spills (cli/resource_notes.hpp); the
  // printed log leaves its info lines out (compile/ptxas_report.hpp).
  if (job.ptxas_verbose) {
    const std::string report = jit::linker_info_log(link, raw);
    if (!out.log.empty() && !report.empty() && out.log.back() != '\n') out.log += '\n';
    out.log += report;
  }
  std::size_t size = 0;
  if (target.kind == format::TargetKind::ptx) {
    if (link.get_linked_ptx_size(raw, &size) != 0) return false;
    std::string ptx(size, '\0');
    link.get_linked_ptx(raw, ptx.data());
    const std::size_t length = std::strlen(ptx.c_str());
    out.image.assign(length + 1, std::byte{0});   // PTX keeps its terminating NUL
    std::memcpy(out.image.data(), ptx.data(), length);
  } else {
    if (link.get_linked_cubin_size(raw, &size) != 0) return false;
    out.image.resize(size);
    link.get_linked_cubin(raw, out.image.data());
  }
  return true;
}

}  // namespace kiln::compile
