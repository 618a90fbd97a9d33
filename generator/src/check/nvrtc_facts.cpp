#include "check/nvrtc_facts.hpp"

#include <algorithm>
#include <sstream>

namespace kiln::check {

std::optional<NvrtcFacts> parse_nvrtc_facts(std::string_view numbers) {
  std::istringstream in{std::string(numbers)};
  NvrtcFacts f;
  if (!(in >> f.nvrtc_major >> f.nvrtc_minor >> f.nvjitlink_major >> f.nvjitlink_minor)) return std::nullopt;
  for (int arch = 0; in >> arch && f.archs.size() < 256;) f.archs.push_back(arch);
  const auto plausible = [](int value, int low, int high) { return value >= low && value <= high; };
  if (f.archs.empty() || !in.eof() || !plausible(f.nvrtc_major, 1, 999) || !plausible(f.nvrtc_minor, 0, 999) ||
      !plausible(f.nvjitlink_major, 1, 999) || !plausible(f.nvjitlink_minor, 0, 999) ||
      !std::all_of(f.archs.begin(), f.archs.end(), [&](int arch) { return plausible(arch, 10, 9999); }))
    return std::nullopt;
  std::sort(f.archs.begin(), f.archs.end());
  return f;
}

std::string unsupported_target(std::string_view name, int nvrtc_major, int nvrtc_minor, std::span<const int> archs) {
  std::string supported;
  for (int arch : archs) supported += (supported.empty() ? "" : " ") + std::to_string(arch);
  return "target '" + std::string(name) + "' is not supported by NVRTC " + std::to_string(nvrtc_major) + "." +
         std::to_string(nvrtc_minor) + " (it supports " + supported + ")";
}

}  // namespace kiln::check
