#include "compile/toolkit.hpp"

#include "check/nvrtc_facts.hpp"
#include "compile/child_process.hpp"
#include "compile/nvrtc_library.hpp"
#include "compile/wheel_toolkit.hpp"
#include "platform/text.hpp"
#include "util/path_variables.hpp"


#include <algorithm>
#include <system_error>

#ifndef KILN_DEFAULT_CUDA_ROOT
#define KILN_DEFAULT_CUDA_ROOT "/usr/local/cuda"
#endif

namespace kiln::compile {

namespace fs = std::filesystem;

namespace {

bool is_toolkit_root(const fs::path& root) {
  std::error_code ec;
  return !root.empty() && fs::is_regular_file(root / "include" / "cuda.h", ec);
}

fs::path nvcc_on_path_root() {
  const fs::path nvcc = find_on_path("nvcc");
  if (nvcc.empty()) return {};
  std::error_code ec;
  const fs::path resolved = fs::canonical(nvcc, ec);
  return ec ? nvcc.parent_path().parent_path() : resolved.parent_path().parent_path();
}

}  // namespace

std::string Toolkit::nvrtc_version() const {
  return std::to_string(nvrtc_major) + "." + std::to_string(nvrtc_minor);
}

std::string Toolkit::nvjitlink_version() const {
  return std::to_string(nvjitlink_major) + "." + std::to_string(nvjitlink_minor);
}

std::vector<std::string> Toolkit::default_targets() const {
  std::vector<std::string> targets;
  for (int arch : supported_archs) targets.push_back("sm_" + std::to_string(arch));
  if (!supported_archs.empty()) targets.push_back("compute_" + std::to_string(supported_archs.front()));
  return targets;
}

bool Toolkit::supports(int arch) const {
  return std::find(supported_archs.begin(), supported_archs.end(), arch) != supported_archs.end();
}

std::string Toolkit::unsupported_target(const std::string& name) const {
  return check::unsupported_target(name, nvrtc_major, nvrtc_minor, supported_archs);
}

fs::path Toolkit::expand(const std::string& path_with_token) const {
  constexpr std::string_view token = "<cuda>";
  if (path_with_token.rfind(token, 0) == 0) {
    std::string rest = path_with_token.substr(token.size());
    while (!rest.empty() && rest.front() == '/') rest.erase(rest.begin());
    return rest.empty() ? root : root / rest;
  }
  return path_with_token;
}

std::string Toolkit::tokenize(const fs::path& absolute) const {
  const fs::path relative = absolute.lexically_relative(root);
  if (!relative.empty() && *relative.begin() != "..") return "<cuda>/" + relative.generic_string();
  return absolute.generic_string();
}

Result<Toolkit> find_toolkit(const fs::path& explicit_root, const fs::path& facts_dir) {
  std::vector<std::pair<std::string, fs::path>> tried, wheels;
  if (!explicit_root.empty()) {
    tried.emplace_back("--cuda-root", explicit_root);
  } else {
    // The toolkit's nvcc, headers and libraries come from the root: a relative one is refused, as
    // the runtime refuses it.
    for (const char* variable : {"CUDA_PATH", "CUDA_HOME"}) {
      const char* p = platform::environment(variable);
      if (!p || !*p) continue;
      KILN_TRY(check_rooted_path(variable, p));
      tried.emplace_back(variable, p);
    }
    if (fs::path p = nvcc_on_path_root(); !p.empty()) tried.emplace_back("nvcc on PATH", p);
    tried.emplace_back("built-in default", KILN_DEFAULT_CUDA_ROOT);
    // NVIDIA's wheels only where no system toolkit is (wheel_toolkit.hpp): a toolkit someone
    // installed, or named, is the one they mean.
    const char* venv = platform::environment("VIRTUAL_ENV");
    std::error_code ec;
    const fs::path executable = fs::canonical("/proc/self/exe", ec);
    for (auto& place : wheel_places(ec ? fs::path() : executable, venv ? venv : ""))
      wheels.push_back(std::move(place));
  }
  Toolkit toolkit;
  const auto first = [](const auto& places, bool (*usable)(const fs::path&)) -> fs::path {
    for (const auto& [source, root] : places) {
      if (!usable(root)) continue;
      std::error_code ec;
      fs::path canonical = fs::weakly_canonical(root, ec);
      return ec ? root : canonical;
    }
    return {};
  };
  toolkit.root = first(tried, is_toolkit_root);
  if (toolkit.root.empty()) toolkit.root = first(wheels, is_wheel_toolkit);
  if (toolkit.root.empty()) {
    std::string message = "no CUDA toolkit found (looked for include/cuda.h under:";
    for (const auto& [source, root] : tried) message += " " + root.string() + " [" + source + "]";
    if (!wheels.empty()) message += "; for NVIDIA's wheels (lib/libnvrtc.so.13 and lib/libnvJitLink.so.13) under:";
    for (const auto& [source, root] : wheels) message += " " + root.string() + " [" + source + "]";
    return Error{message + "); set CUDA_PATH, pass --cuda-root, or pip install nvidia-cuda-nvrtc==13.0.* "
                           "nvidia-nvjitlink==13.0.* in kiln's Python environment"};
  }
  // Without the NVRTC and nvJitLink this kiln was built against, those of the toolkit found.
  use_toolkit_libraries(toolkit.root);
  Result<NvrtcFacts> facts = nvrtc_facts(facts_dir);
  if (!facts) return facts.error();
  toolkit.nvrtc_major = facts->nvrtc_major;
  toolkit.nvrtc_minor = facts->nvrtc_minor;
  toolkit.nvjitlink_major = facts->nvjitlink_major;
  toolkit.nvjitlink_minor = facts->nvjitlink_minor;
  toolkit.supported_archs = std::move(facts->archs);
  return toolkit;
}

}  // namespace kiln::compile
