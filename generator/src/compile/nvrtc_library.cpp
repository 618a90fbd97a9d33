#include "compile/nvrtc_library.hpp"

#include "nvrtc/compiler_loader.hpp"
#include "platform/library.hpp"
#include "util/file_io.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <optional>
#include <sstream>

namespace kiln::compile {

namespace fs = std::filesystem;

namespace {

// The libraries this kiln was built against, by the paths its configuration found them at
// (KILN_NVRTC_LIBRARY and KILN_NVJITLINK_LIBRARY in cmake-modules/KilnDependencies.cmake).
constexpr const char* k_nvrtc_file = KILN_NVRTC_LIBRARY_FILE;
constexpr const char* k_nvjitlink_file = KILN_NVJITLINK_LIBRARY_FILE;

fs::path g_toolkit_root;   // use_toolkit_libraries

bool is_file(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

// The major version of the NVRTC this kiln was built against (its soname's number): 13 where its
// facts were not asked at configure time, as CUDA 13's wheels are.
int built_in_major() {
  const std::optional<NvrtcFacts> facts = check::parse_nvrtc_facts(KILN_NVRTC_BUILT_IN_FACTS);
  return facts ? facts->nvrtc_major : 13;
}

CompilerFiles process_files() {
  return compiler_files({k_nvrtc_file, k_nvjitlink_file}, g_toolkit_root, built_in_major());
}

// What identifies the libraries: their paths, sizes and modification times. Other files than the
// built-in ones have another identity, so their facts are asked and kept in the facts file.
std::string library_identity() {
  std::string identity;
  const CompilerFiles files = process_files();
  for (const fs::path& file : {files.nvrtc, files.nvjitlink}) {
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
  Result<const jit::CompilerApi*> api = nvrtc_api();
  if (!api) return api.error();
  const jit::NvrtcApi& nvrtc = (*api)->nvrtc;
  NvrtcFacts f;
  if (nvrtc.version(&f.nvrtc_major, &f.nvrtc_minor) != 0) return Error{"NVRTC does not report its version"};
  unsigned link_major = 0, link_minor = 0;
  if ((*api)->nvjitlink.version(&link_major, &link_minor) != 0) return Error{"nvJitLink does not report its version"};
  f.nvjitlink_major = static_cast<int>(link_major);
  f.nvjitlink_minor = static_cast<int>(link_minor);
  int count = 0;
  if (nvrtc.get_num_supported_archs(&count) != 0 || count <= 0)
    return Error{"NVRTC does not report its supported architectures"};
  f.archs.resize(static_cast<std::size_t>(count));
  if (nvrtc.get_supported_archs(f.archs.data()) != 0) return Error{"NVRTC does not report its supported architectures"};
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

std::optional<NvrtcFacts> read_nvrtc_facts(const std::string& text, const std::string& identity) {
  const std::string head = std::string(k_facts_magic) + "\n" + identity;
  if (!text.starts_with(head)) return std::nullopt;
  return check::parse_nvrtc_facts(std::string_view(text).substr(head.size()));
}

Result<NvrtcFacts> nvrtc_facts(const fs::path& facts_dir) {
  const std::string identity = library_identity();
  // Asked when kiln was configured, of these very files (CMakeLists.txt).
  if (!identity.empty() && identity == KILN_NVRTC_BUILT_IN_IDENTITY)
    if (std::optional<NvrtcFacts> facts = check::parse_nvrtc_facts(KILN_NVRTC_BUILT_IN_FACTS)) return *facts;
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

CompilerFiles compiler_files(const CompilerFiles& built_in, const fs::path& toolkit_root, int major) {
  if (toolkit_root.empty() || (is_file(built_in.nvrtc) && is_file(built_in.nvjitlink))) return built_in;
  // By soname (libnvrtc.so.13): the wheels have no libnvrtc.so, the name a toolkit's linker uses.
  const fs::path nvrtc = platform::versioned_library_name("nvrtc", major);
  const fs::path nvjitlink = platform::versioned_library_name("nvJitLink", major);
  for (const char* directory : {"lib64", "lib"}) {
    const fs::path dir = toolkit_root / directory;
    CompilerFiles files{dir / nvrtc, dir / nvjitlink};
    if (is_file(files.nvrtc) && is_file(files.nvjitlink)) return files;
  }
  return built_in;
}

void use_toolkit_libraries(const fs::path& toolkit_root) { g_toolkit_root = toolkit_root; }


Result<const jit::CompilerApi*> nvrtc_api() {
  // Loaded once, kept for the process as a linked library would be; a failure is kept too.
  static const Result<jit::CompilerApi> loaded = [] {
    const CompilerFiles files = process_files();
    Result<jit::CompilerApi> api = jit::load_compiler_files(files.nvrtc.string(), files.nvjitlink.string());
    return api ? api : Result<jit::CompilerApi>(Error{"kiln " + api.error().message});
  }();
  if (!loaded) return loaded.error();
  return &*loaded;
}

Status load_nvrtc() {
  const Result<const jit::CompilerApi*> api = nvrtc_api();
  if (!api) return api.error();
  return Ok{};
}

}  // namespace kiln::compile
