#include "scan/compile_args.hpp"

#include "scan/parser_module.hpp"
#include "scan/source_text.hpp"
#include "util/plain_names.hpp"

#include <algorithm>
#include <cstdlib>
#include <system_error>

namespace kiln::scan::detail {

namespace fs = std::filesystem;

namespace {

const std::string k_support = std::string(k_support_dir);

bool under(const fs::path& path, const fs::path& root) {
  if (root.empty()) return false;
  const fs::path p = path.lexically_normal(), r = root.lexically_normal();
  auto [rit, pit] = std::mismatch(r.begin(), r.end(), p.begin(), p.end());
  return rit == r.end() || (std::next(rit) == r.end() && rit->empty());
}

}  // namespace

ResourceDir choose_clang_resource_dir(const char* variable, const fs::path& parser_dir, const fs::path& built_in) {
  if (variable != nullptr && *variable != '\0') return {variable, ResourceDir::From::variable};
  // Only a complete copy counts: without the CUDA wrapper every CUDA parse would fail, and the
  // built-in directory may still be there.
  const fs::path bundled = parser_dir / k_bundled_resource_dir;
  std::error_code ec;
  if (!parser_dir.empty() && fs::is_regular_file(bundled / "include" / "__clang_cuda_runtime_wrapper.h", ec))
    return {bundled, ResourceDir::From::bundled};
  return {built_in, ResourceDir::From::built_in};
}

ResourceDir clang_resource_dir() {
  return choose_clang_resource_dir(std::getenv("KILN_CLANG_RESOURCE_DIR"), parser_module_path().parent_path(),
                                   KILN_CLANG_RESOURCE_DIR);
}

fs::path effective_cuda_root(const fs::path& cuda_root) {
  return cuda_root.empty() ? fs::path(KILN_SCAN_DEFAULT_CUDA_ROOT) : cuda_root;
}

ParseMode host_source_mode(const fs::path& file) {
  const std::string ext = file.extension().string();
  if (ext == ".cu" || ext == ".cuh") return ParseMode::host;
  if (ext == ".c") return ParseMode::c;
  return ParseMode::cxx;
}

std::vector<std::string> clang_arguments(const ScanInput& input, ParseMode mode, const std::string& file) {
  const fs::path cuda = effective_cuda_root(input.cuda_root);
  // No error limit: errors the scanner tolerates (tolerated_errors.hpp) must not stop the parse.
  // -Wno-register: `register` is an error in C++17 unless this is off; nvcc and GCC only warn.
  std::vector<std::string> args = {"clang", "-fsyntax-only", "-fno-caret-diagnostics", "-w", "-ferror-limit=0",
                                   "-Wno-register", "-resource-dir=" + clang_resource_dir().path.string()};
  switch (mode) {
    case ParseMode::device_prelude:
      args.insert(args.end(), {"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudainc",
                               "-nocudalib", "-include", k_support + "/nvrtc_prelude.h"});
      break;
    case ParseMode::device:
    case ParseMode::host:
      // clang 19 knows GPUs up to sm_90a and CUDA up to 12.5: scan as sm_90. The toolkit's include
      // directories come first (as nvcc and NVRTC use them) so that copies elsewhere never shadow them.
      // overrides/ comes first for the wrapper's quoted includes; its cuda.h includes the toolkit's
      // by the path in __KILN_TOOLKIT_CUDA_H.
      args.insert(args.end(), {"-x", "cuda", mode == ParseMode::device ? "--cuda-device-only" : "--cuda-host-only",
                               "--cuda-gpu-arch=sm_90", "-nocudalib", "-Wno-unknown-cuda-version",
                               "--cuda-path=" + cuda.string(), "-idirafter", k_support + "/stand-ins",
                               "-iquote", k_support + "/overrides", "-include", k_support + "/after_wrapper.h",
                               "-D__KILN_TOOLKIT_CUDA_H=\"" + (cuda / "include" / "cuda.h").string() + "\""});
      // clang 19's driver gives the CUDA version to the host side only. Without it the device side
      // takes <<<>>> to mean cudaConfigureCall, which CUDA 12 removed, and every launch in host code
      // is an error there.
      if (mode == ParseMode::device) args.insert(args.end(), {"-Xclang", "-target-sdk-version=12.5"});
      break;
    case ParseMode::cxx: args.insert(args.end(), {"-x", "c++"}); break;
    case ParseMode::c: args.insert(args.end(), {"-x", "c"}); break;
  }
  // The stand-ins (omp.h among them) are found only where no real header is.
  if (mode == ParseMode::cxx || mode == ParseMode::c)
    args.insert(args.end(), {"-idirafter", k_support + "/stand-ins"});
  if (mode != ParseMode::c) args.push_back("-std=" + input.language_standard);
  const bool cuda_mode = mode == ParseMode::device_prelude || mode == ParseMode::device || mode == ParseMode::host;
  // NVRTC's -default-device: clang's pragma makes every function after it __host__ __device__, which
  // lets device code call the unannotated ones, as NVRTC does.
  if (cuda_mode && input.default_device) args.insert(args.end(), {"-include", k_support + "/default_device.h"});
  if (cuda_mode && input.relocatable) args.push_back("-fgpu-rdc");
  if (cuda_mode)
    for (const std::string& header : input.pre_includes) args.insert(args.end(), {"-include", header});
  for (const std::string& d : input.defines) args.push_back("-D" + d);
  args.insert(args.end(), input.macro_options.begin(), input.macro_options.end());
  for (const std::string& i : input.include_dirs) args.push_back("-I" + i);
  if (mode == ParseMode::device || mode == ParseMode::host)
    args.insert(args.end(), {"-isystem", (cuda / "include" / "cccl").string(), "-isystem", (cuda / "include").string()});
  else if (mode == ParseMode::cxx || mode == ParseMode::c)
    args.insert(args.end(), {"-isystem", (cuda / "include").string()});
  // A source named like an option ("--config=x/k.cu") is still a file to the driver.
  args.push_back(file_operand(file));
  return args;
}

bool prelude_candidate(const ScanInput& input, std::string_view source_text) {
  const fs::path directory = input.directory.empty() ? fs::current_path() : input.directory;
  const fs::path cuda = effective_cuda_root(input.cuda_root);
  const fs::path file_dir = (directory / input.file).parent_path();
  for (const IncludeDirective& include : include_directives(source_text)) {
    std::vector<fs::path> candidates;
    if (!include.angled) candidates.push_back(file_dir / include.name);
    for (const std::string& dir : input.include_dirs) candidates.push_back(directory / dir / include.name);
    bool found = false;
    for (const fs::path& c : candidates) {
      std::error_code ec;
      if (fs::is_regular_file(c, ec) && !under(fs::weakly_canonical(c, ec), fs::weakly_canonical(cuda, ec))) {
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

}  // namespace kiln::scan::detail
