#include "compile/nvrtc_library.hpp"

#include "util/file_io.hpp"

#include <dlfcn.h>
#include <nvJitLink.h>
#include <nvrtc.h>
#include <sys/stat.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <sstream>

namespace kiln::compile {

namespace fs = std::filesystem;

namespace {

// The functions the generator calls, bound from the libraries.
struct Bound {
  std::string error;   // why the libraries could not be loaded; "" when they were
  const char* (*error_string)(nvrtcResult) = nullptr;
  nvrtcResult (*version)(int*, int*) = nullptr;
  nvrtcResult (*num_archs)(int*) = nullptr;
  nvrtcResult (*archs)(int*) = nullptr;
  nvrtcResult (*create)(nvrtcProgram*, const char*, const char*, int, const char* const*, const char* const*) = nullptr;
  nvrtcResult (*destroy)(nvrtcProgram*) = nullptr;
  nvrtcResult (*compile)(nvrtcProgram, int, const char* const*) = nullptr;
  nvrtcResult (*ptx_size)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*ptx)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*ltoir_size)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*ltoir)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*log_size)(nvrtcProgram, size_t*) = nullptr;
  nvrtcResult (*log)(nvrtcProgram, char*) = nullptr;
  nvrtcResult (*add_name)(nvrtcProgram, const char*) = nullptr;
  nvrtcResult (*lowered)(nvrtcProgram, const char*, const char**) = nullptr;
  nvJitLinkResult (*link_version)(unsigned*, unsigned*) = nullptr;
  nvJitLinkResult (*link_create)(nvJitLinkHandle*, uint32_t, const char* const*) = nullptr;
  nvJitLinkResult (*link_destroy)(nvJitLinkHandle*) = nullptr;
  nvJitLinkResult (*link_add_data)(nvJitLinkHandle, nvJitLinkInputType, const void*, size_t, const char*) = nullptr;
  nvJitLinkResult (*link_add_file)(nvJitLinkHandle, nvJitLinkInputType, const char*) = nullptr;
  nvJitLinkResult (*link_complete)(nvJitLinkHandle) = nullptr;
  nvJitLinkResult (*cubin_size)(nvJitLinkHandle, size_t*) = nullptr;
  nvJitLinkResult (*cubin)(nvJitLinkHandle, void*) = nullptr;
  nvJitLinkResult (*linked_ptx_size)(nvJitLinkHandle, size_t*) = nullptr;
  nvJitLinkResult (*linked_ptx)(nvJitLinkHandle, char*) = nullptr;
  nvJitLinkResult (*error_log_size)(nvJitLinkHandle, size_t*) = nullptr;
  nvJitLinkResult (*error_log)(nvJitLinkHandle, char*) = nullptr;
};

template <typename F>
void bind(void* library, const char* name, F& slot, std::string& missing) {
  slot = reinterpret_cast<F>(dlsym(library, name));
  if (slot == nullptr) missing += std::string(missing.empty() ? "" : ", ") + name;
}

// The libraries this kiln was built against, by the paths its build found them at (as its RUNPATH
// named their directory when it linked them).
const Bound& bound() {
  static Bound b;
  static std::once_flag once;
  std::call_once(once, [] {
    // Kept for the life of the process, as a linked library would be.
    void* nvrtc = dlopen(KILN_NVRTC_LIBRARY_FILE, RTLD_NOW | RTLD_LOCAL);
    void* link = nvrtc ? dlopen(KILN_NVJITLINK_LIBRARY_FILE, RTLD_NOW | RTLD_LOCAL) : nullptr;
    if (nvrtc == nullptr || link == nullptr) {
      const char* why = dlerror();
      b.error = std::string("kiln cannot load ") + (nvrtc ? KILN_NVJITLINK_LIBRARY_FILE : KILN_NVRTC_LIBRARY_FILE) +
                ": " + (why ? why : "unknown error");
      return;
    }
    std::string missing;
    bind(nvrtc, "nvrtcGetErrorString", b.error_string, missing);
    bind(nvrtc, "nvrtcVersion", b.version, missing);
    bind(nvrtc, "nvrtcGetNumSupportedArchs", b.num_archs, missing);
    bind(nvrtc, "nvrtcGetSupportedArchs", b.archs, missing);
    bind(nvrtc, "nvrtcCreateProgram", b.create, missing);
    bind(nvrtc, "nvrtcDestroyProgram", b.destroy, missing);
    bind(nvrtc, "nvrtcCompileProgram", b.compile, missing);
    bind(nvrtc, "nvrtcGetPTXSize", b.ptx_size, missing);
    bind(nvrtc, "nvrtcGetPTX", b.ptx, missing);
    bind(nvrtc, "nvrtcGetLTOIRSize", b.ltoir_size, missing);
    bind(nvrtc, "nvrtcGetLTOIR", b.ltoir, missing);
    bind(nvrtc, "nvrtcGetProgramLogSize", b.log_size, missing);
    bind(nvrtc, "nvrtcGetProgramLog", b.log, missing);
    bind(nvrtc, "nvrtcAddNameExpression", b.add_name, missing);
    bind(nvrtc, "nvrtcGetLoweredName", b.lowered, missing);
    bind(link, "nvJitLinkVersion", b.link_version, missing);
    bind(link, "__nvJitLinkCreate_13_0", b.link_create, missing);
    bind(link, "__nvJitLinkDestroy_13_0", b.link_destroy, missing);
    bind(link, "__nvJitLinkAddData_13_0", b.link_add_data, missing);
    bind(link, "__nvJitLinkAddFile_13_0", b.link_add_file, missing);
    bind(link, "__nvJitLinkComplete_13_0", b.link_complete, missing);
    bind(link, "__nvJitLinkGetLinkedCubinSize_13_0", b.cubin_size, missing);
    bind(link, "__nvJitLinkGetLinkedCubin_13_0", b.cubin, missing);
    bind(link, "__nvJitLinkGetLinkedPtxSize_13_0", b.linked_ptx_size, missing);
    bind(link, "__nvJitLinkGetLinkedPtx_13_0", b.linked_ptx, missing);
    bind(link, "__nvJitLinkGetErrorLogSize_13_0", b.error_log_size, missing);
    bind(link, "__nvJitLinkGetErrorLog_13_0", b.error_log, missing);
    if (!missing.empty()) b.error = "kiln's NVRTC or nvJitLink lacks " + missing;
  });
  return b;
}

// Calls `f` of the loaded libraries, or fails as each library reports an internal error.
template <typename R, typename F, typename... Args>
R call(F Bound::*f, R failure, Args... args) {
  const Bound& b = bound();
  if (!b.error.empty() || b.*f == nullptr) return failure;
  return (b.*f)(args...);
}

// What identifies the libraries: their paths, sizes and modification times.
std::string library_identity() {
  std::string identity;
  for (const char* file : {KILN_NVRTC_LIBRARY_FILE, KILN_NVJITLINK_LIBRARY_FILE}) {
    std::error_code ec;
    const fs::path real = fs::canonical(file, ec);
    struct stat info {};
    if (ec || stat(real.c_str(), &info) != 0) return {};
    // Whole seconds: what CMake's file(TIMESTAMP) gives the built-in identity.
    identity += real.string() + " " + std::to_string(info.st_size) + " " + std::to_string(info.st_mtim.tv_sec) + "\n";
  }
  return identity;
}

Result<NvrtcFacts> ask_libraries() {
  NvrtcFacts f;
  if (nvrtcVersion(&f.nvrtc_major, &f.nvrtc_minor) != NVRTC_SUCCESS)
    return Error{bound().error.empty() ? "NVRTC does not report its version" : bound().error};
  unsigned link_major = 0, link_minor = 0;
  if (nvJitLinkVersion(&link_major, &link_minor) != NVJITLINK_SUCCESS)
    return Error{"nvJitLink does not report its version"};
  f.nvjitlink_major = static_cast<int>(link_major);
  f.nvjitlink_minor = static_cast<int>(link_minor);
  int count = 0;
  if (nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0)
    return Error{"NVRTC does not report its supported architectures"};
  f.archs.resize(static_cast<std::size_t>(count));
  if (nvrtcGetSupportedArchs(f.archs.data()) != NVRTC_SUCCESS)
    return Error{"NVRTC does not report its supported architectures"};
  std::sort(f.archs.begin(), f.archs.end());
  return f;
}

}  // namespace

static constexpr const char* k_facts_magic = "kiln-nvrtc-facts 1";

std::string nvrtc_facts_file(const std::string& identity, const NvrtcFacts& f) {
  std::ostringstream out;
  out << k_facts_magic << "\n" << identity << f.nvrtc_major << " " << f.nvrtc_minor << " " << f.nvjitlink_major << " "
      << f.nvjitlink_minor;
  for (const int arch : f.archs) out << " " << arch;
  out << "\n";
  return out.str();
}

// "nvrtc_major nvrtc_minor nvjitlink_major nvjitlink_minor arch...", as nvrtc_facts_file and
// nvrtc_facts_probe.c write them.
static std::optional<NvrtcFacts> parse_facts(const std::string& numbers) {
  std::istringstream in(numbers);
  NvrtcFacts f;
  if (!(in >> f.nvrtc_major >> f.nvrtc_minor >> f.nvjitlink_major >> f.nvjitlink_minor)) return std::nullopt;
  for (int arch = 0; in >> arch && f.archs.size() < 256;) f.archs.push_back(arch);
  // A file in a cache directory is data: numbers outside what any NVRTC says are not believed.
  const auto plausible = [](int value, int low, int high) { return value >= low && value <= high; };
  if (f.archs.empty() || !in.eof() || !plausible(f.nvrtc_major, 1, 999) || !plausible(f.nvrtc_minor, 0, 999) ||
      !plausible(f.nvjitlink_major, 1, 999) || !plausible(f.nvjitlink_minor, 0, 999) ||
      !std::all_of(f.archs.begin(), f.archs.end(), [&](int arch) { return plausible(arch, 10, 9999); }))
    return std::nullopt;
  std::sort(f.archs.begin(), f.archs.end());
  return f;
}

std::optional<NvrtcFacts> read_nvrtc_facts(const std::string& text, const std::string& identity) {
  const std::string head = std::string(k_facts_magic) + "\n" + identity;
  if (!text.starts_with(head)) return std::nullopt;
  return parse_facts(text.substr(head.size()));
}

Result<NvrtcFacts> nvrtc_facts(const fs::path& facts_dir) {
  const std::string identity = library_identity();
  // Asked when kiln was configured, of these very files (CMakeLists.txt).
  if (!identity.empty() && identity == KILN_NVRTC_BUILT_IN_IDENTITY)
    if (std::optional<NvrtcFacts> facts = parse_facts(KILN_NVRTC_BUILT_IN_FACTS)) return *facts;
  const fs::path file = facts_dir / "nvrtc-facts";
  if (!identity.empty() && !facts_dir.empty()) {
    std::error_code ec;
    const auto size = fs::file_size(file, ec);
    if (const std::optional<std::string> text = !ec && size <= 4096 ? read_text_file(file) : std::nullopt)
      if (std::optional<NvrtcFacts> facts = read_nvrtc_facts(*text, identity)) return *facts;
  }
  Result<NvrtcFacts> asked = ask_libraries();
  if (asked && !identity.empty() && !facts_dir.empty()) {
    const std::string text = nvrtc_facts_file(identity, *asked);
    std::error_code ec;
    fs::create_directories(facts_dir, ec);
    (void)write_file_atomically(file, std::as_bytes(std::span(text)));   // else the next build asks again
  }
  return asked;
}

std::string load_nvrtc() { return bound().error; }

}  // namespace kiln::compile

// The entry points the generator calls (nvrtc.h, nvJitLink.h), each the loaded library's.
extern "C" {

const char* nvrtcGetErrorString(nvrtcResult result) {
  const kiln::compile::Bound& b = kiln::compile::bound();
  if (!b.error.empty()) return b.error.c_str();
  return b.error_string(result);
}

#define KILN_NVRTC(name, slot, params, args) \
  nvrtcResult name params { return kiln::compile::call(&kiln::compile::Bound::slot, NVRTC_ERROR_INTERNAL_ERROR, args); }
#define KILN_NVJITLINK(name, slot, params, args)                                                                   \
  nvJitLinkResult name params {                                                                                     \
    return kiln::compile::call(&kiln::compile::Bound::slot, NVJITLINK_ERROR_INTERNAL, args);                        \
  }
#define KILN_ARGS(...) __VA_ARGS__

KILN_NVRTC(nvrtcVersion, version, (int* major, int* minor), KILN_ARGS(major, minor))
KILN_NVRTC(nvrtcGetNumSupportedArchs, num_archs, (int* count), count)
KILN_NVRTC(nvrtcGetSupportedArchs, archs, (int* archs), archs)
KILN_NVRTC(nvrtcCreateProgram, create,
           (nvrtcProgram * program, const char* source, const char* name, int count, const char* const* headers,
            const char* const* names),
           KILN_ARGS(program, source, name, count, headers, names))
KILN_NVRTC(nvrtcDestroyProgram, destroy, (nvrtcProgram * program), program)
KILN_NVRTC(nvrtcCompileProgram, compile, (nvrtcProgram program, int count, const char* const* options),
           KILN_ARGS(program, count, options))
KILN_NVRTC(nvrtcGetPTXSize, ptx_size, (nvrtcProgram program, size_t* size), KILN_ARGS(program, size))
KILN_NVRTC(nvrtcGetPTX, ptx, (nvrtcProgram program, char* ptx), KILN_ARGS(program, ptx))
KILN_NVRTC(nvrtcGetLTOIRSize, ltoir_size, (nvrtcProgram program, size_t* size), KILN_ARGS(program, size))
KILN_NVRTC(nvrtcGetLTOIR, ltoir, (nvrtcProgram program, char* ltoir), KILN_ARGS(program, ltoir))
KILN_NVRTC(nvrtcGetProgramLogSize, log_size, (nvrtcProgram program, size_t* size), KILN_ARGS(program, size))
KILN_NVRTC(nvrtcGetProgramLog, log, (nvrtcProgram program, char* log), KILN_ARGS(program, log))
KILN_NVRTC(nvrtcAddNameExpression, add_name, (nvrtcProgram program, const char* const name), KILN_ARGS(program, name))
KILN_NVRTC(nvrtcGetLoweredName, lowered, (nvrtcProgram program, const char* const name, const char** lowered),
           KILN_ARGS(program, name, lowered))

KILN_NVJITLINK(nvJitLinkVersion, link_version, (unsigned int* major, unsigned int* minor), KILN_ARGS(major, minor))
KILN_NVJITLINK(__nvJitLinkCreate_13_0, link_create, (nvJitLinkHandle * handle, uint32_t count, const char* const* options),
               KILN_ARGS(handle, count, options))
KILN_NVJITLINK(__nvJitLinkDestroy_13_0, link_destroy, (nvJitLinkHandle * handle), handle)
KILN_NVJITLINK(__nvJitLinkAddData_13_0, link_add_data,
               (nvJitLinkHandle handle, nvJitLinkInputType type, const void* data, size_t size, const char* name),
               KILN_ARGS(handle, type, data, size, name))
KILN_NVJITLINK(__nvJitLinkAddFile_13_0, link_add_file, (nvJitLinkHandle handle, nvJitLinkInputType type, const char* file),
               KILN_ARGS(handle, type, file))
KILN_NVJITLINK(__nvJitLinkComplete_13_0, link_complete, (nvJitLinkHandle handle), handle)
KILN_NVJITLINK(__nvJitLinkGetLinkedCubinSize_13_0, cubin_size, (nvJitLinkHandle handle, size_t* size),
               KILN_ARGS(handle, size))
KILN_NVJITLINK(__nvJitLinkGetLinkedCubin_13_0, cubin, (nvJitLinkHandle handle, void* cubin), KILN_ARGS(handle, cubin))
KILN_NVJITLINK(__nvJitLinkGetLinkedPtxSize_13_0, linked_ptx_size, (nvJitLinkHandle handle, size_t* size),
               KILN_ARGS(handle, size))
KILN_NVJITLINK(__nvJitLinkGetLinkedPtx_13_0, linked_ptx, (nvJitLinkHandle handle, char* ptx), KILN_ARGS(handle, ptx))
KILN_NVJITLINK(__nvJitLinkGetErrorLogSize_13_0, error_log_size, (nvJitLinkHandle handle, size_t* size),
               KILN_ARGS(handle, size))
KILN_NVJITLINK(__nvJitLinkGetErrorLog_13_0, error_log, (nvJitLinkHandle handle, char* log), KILN_ARGS(handle, log))

}  // extern "C"
