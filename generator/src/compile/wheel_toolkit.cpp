#include "compile/wheel_toolkit.hpp"

#include <algorithm>
#include <system_error>

namespace kiln::compile {

namespace fs = std::filesystem;

namespace {

// site-packages/kiln/_prefix/bin/kiln: three directories up from bin/ is site-packages. One more
// covers a prefix nested one level deeper; more would reach directories no install of kiln owns.
constexpr int k_levels_above_executable = 4;

bool is_file(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec);
}

// "13.0" from NVRTC's builtins library (lib/libnvrtc-builtins.so.13.0), which names the release the
// wheels are of; "13" where it is absent. Wheels of one release are the ones to install beside it.
std::string wheel_release(const fs::path& root) {
  std::error_code ec;
  const std::string stem = "libnvrtc-builtins.so.";
  for (const fs::directory_entry& entry : fs::directory_iterator(root / "lib", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with(stem) && name.find('.', stem.size()) != std::string::npos) return name.substr(stem.size());
  }
  return "13";
}

}  // namespace

std::vector<std::pair<std::string, fs::path>> wheel_places(const fs::path& executable, const fs::path& virtual_env) {
  std::vector<std::pair<std::string, fs::path>> places;
  if (!executable.empty()) {
    fs::path directory = executable.parent_path();
    for (int level = 0; level < k_levels_above_executable && directory.has_relative_path(); ++level) {
      directory = directory.parent_path();
      places.emplace_back("beside kiln", directory / "nvidia" / "cu13");
    }
  }
  if (virtual_env.has_root_directory()) {
    std::vector<fs::path> found;
    std::error_code ec;
    for (const fs::directory_entry& entry : fs::directory_iterator(virtual_env / "lib", ec))
      if (entry.path().filename().string().starts_with("python3.")) found.push_back(entry.path());
    std::sort(found.begin(), found.end());
    // Named in the message even when the venv has no python3.*: it says where kiln looked.
    if (found.empty()) found.push_back(virtual_env / "lib" / "python3.*");
    for (const fs::path& python : found) places.emplace_back("$VIRTUAL_ENV", python / "site-packages" / "nvidia" / "cu13");
  }
  return places;
}

bool is_wheel_toolkit(const fs::path& root) {
  return is_file(root / "lib" / "libnvrtc.so.13") && is_file(root / "lib" / "libnvJitLink.so.13");
}

bool is_wheel_tree(const fs::path& root) {
  return root.filename() == "cu13" && root.parent_path().filename() == "nvidia";
}

std::string missing_wheel_nvcc(const fs::path& root) {
  if (!is_wheel_tree(root) || is_file(root / "bin" / "nvcc")) return {};
  const std::string v = "==" + wheel_release(root) + ".*";
  return "this unit needs nvcc (it has host code, or NVRTC cannot compile it), which NVIDIA's wheels at " +
         root.string() +
         " lack: pip install nvidia-cuda-nvcc" + v + " nvidia-nvvm" + v + " nvidia-cuda-crt" + v +
         " nvidia-cuda-runtime" + v;
}

std::string missing_wheel_cccl(const fs::path& root) {
  std::error_code ec;
  if (!is_wheel_tree(root) || fs::is_directory(root / "include" / "cccl", ec)) return {};
  return "CCCL's headers (<cub/...>, <thrust/...>, <cuda/...>) are not in NVIDIA's wheels at " + root.string() +
         ": pip install nvidia-cuda-cccl==" + wheel_release(root) + ".*";
}

bool names_a_cccl_header(std::string_view log) {
  // As NVRTC quotes an include ("cub/...") and GCC's preprocessor starts a line or message with it.
  for (const char* directory : {"cub/", "thrust/", "cuda/", "nv/"})
    for (const char* before : {"\"", " ", "\n", "<"})
      if (log.find(std::string(before) + directory) != std::string_view::npos) return true;
  return false;
}

}  // namespace kiln::compile
