// What Kiln knows of NVRTC and nvJitLink without loading them: their versions and the architectures
// NVRTC supports (nvrtcGetSupportedArchs), in the words nvrtc_facts_probe.c prints when Kiln is
// configured, and the message for a target NVRTC does not support. Plain code that loads nothing:
// Kiln's configure-time checker (configure_checker.cpp) compiles it too, so that kiln build, kiln
// check and kiln_add_cache inside Kiln's own tree say the same.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::check {

struct NvrtcFacts {
  int nvrtc_major = 0, nvrtc_minor = 0;
  int nvjitlink_major = 0, nvjitlink_minor = 0;
  std::vector<int> archs;     // nvrtcGetSupportedArchs, sorted
};

// "nvrtc_major nvrtc_minor nvjitlink_major nvjitlink_minor arch...", as the probe prints them and the
// nvrtc-facts file holds them; nothing unless every number is one NVRTC could report (a file in a
// cache directory is data).
std::optional<NvrtcFacts> parse_nvrtc_facts(std::string_view numbers);

// Why NVRTC refuses target `name` (of an architecture it does not support):
// "target 'sm_52' is not supported by NVRTC 13.0 (it supports 75 80 ...)".
std::string unsupported_target(std::string_view name, int nvrtc_major, int nvrtc_minor, std::span<const int> archs);

}  // namespace kiln::check
