#include "compile/lto_link.hpp"

#include <nvJitLink.h>

#include <cstring>
#include <memory>

namespace kiln::compile {

namespace {

struct LinkerDeleter {
  void operator()(nvJitLinkHandle h) const { nvJitLinkDestroy(&h); }
};
using Linker = std::unique_ptr<std::remove_pointer_t<nvJitLinkHandle>, LinkerDeleter>;

std::string linker_log(nvJitLinkHandle linker) {
  std::size_t size = 0;
  if (nvJitLinkGetErrorLogSize(linker, &size) != NVJITLINK_SUCCESS || size <= 1) return {};
  std::string log(size, '\0');
  nvJitLinkGetErrorLog(linker, log.data());
  return log.c_str();
}

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

  const std::string where = job.display_prefix + job.source;
  nvJitLinkHandle raw = nullptr;
  // nvJitLinkCreate takes char** but does not modify the strings.
  if (nvJitLinkCreate(&raw, static_cast<std::uint32_t>(argv.size()), const_cast<const char**>(argv.data())) !=
      NVJITLINK_SUCCESS) {
    out.log += (out.log.empty() ? "" : "\n") + where + ": error: nvJitLink rejected the link options for " +
               job.target + " (" + [&] {
                 std::string joined;
                 for (const std::string& o : options) joined += (joined.empty() ? "" : " ") + o;
                 return joined;
               }() + ")";
    return false;
  }
  Linker linker(raw);
  nvJitLinkResult result = NVJITLINK_SUCCESS;
  for (const LinkData& input : request.inputs) {
    const nvJitLinkInputType type = input.kind == LinkInput::fatbin ? NVJITLINK_INPUT_FATBIN : NVJITLINK_INPUT_LTOIR;
    const std::string& name = input.name.empty() ? job.source : input.name;
    if (result == NVJITLINK_SUCCESS) result = nvJitLinkAddData(raw, type, input.bytes.data(), input.bytes.size(), name.c_str());
  }
  for (const std::filesystem::path& library : request.libraries)
    if (result == NVJITLINK_SUCCESS) result = nvJitLinkAddFile(raw, NVJITLINK_INPUT_LIBRARY, library.c_str());
  if (result == NVJITLINK_SUCCESS) result = nvJitLinkComplete(raw);
  if (result != NVJITLINK_SUCCESS) {
    out.log += (out.log.empty() ? "" : "\n") + where + ": error: linking for " + job.target + " failed:\n" +
               linker_log(raw);
    return false;
  }
  std::size_t size = 0;
  if (target.kind == format::TargetKind::ptx) {
    if (nvJitLinkGetLinkedPtxSize(raw, &size) != NVJITLINK_SUCCESS) return false;
    std::string ptx(size, '\0');
    nvJitLinkGetLinkedPtx(raw, ptx.data());
    const std::size_t length = std::strlen(ptx.c_str());
    out.image.assign(length + 1, std::byte{0});   // PTX keeps its terminating NUL
    std::memcpy(out.image.data(), ptx.data(), length);
  } else {
    if (nvJitLinkGetLinkedCubinSize(raw, &size) != NVJITLINK_SUCCESS) return false;
    out.image.resize(size);
    nvJitLinkGetLinkedCubin(raw, out.image.data());
  }
  return true;
}

}  // namespace kiln::compile
