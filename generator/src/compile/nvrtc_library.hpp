// NVRTC and nvJitLink, loaded the first time the generator calls them, not at kiln's start: mapping
// both costs every kiln process about 19 ms, and a build whose units nvcc compiles calls neither.
// The generator calls nvrtc.h's and nvJitLink.h's functions as they are declared; nvrtc_library.cpp
// defines each one it uses to load the libraries this kiln was built against (once per process) and
// call theirs. What every build needs of them, their versions and NVRTC's architectures, was asked
// when kiln was configured and is built in with the libraries' identities (path, size, modification
// time); for other files (a kiln moved to another toolkit) it is kept in a small file beside the
// user's cache. So a build loads them only to compile or link with them.
#pragma once

#include "util/result.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kiln::compile {

struct NvrtcFacts {
  int nvrtc_major = 0, nvrtc_minor = 0;
  int nvjitlink_major = 0, nvjitlink_minor = 0;
  std::vector<int> archs;     // nvrtcGetSupportedArchs, sorted
};

// The built-in facts when the libraries are the files they were asked of; else those in
// `facts_dir`/nvrtc-facts when that file describes these libraries; else asked of the libraries and
// written there (atomically; a directory that cannot be written only means the next build asks
// again). An empty `facts_dir`: nothing is read or written there.
Result<NvrtcFacts> nvrtc_facts(const std::filesystem::path& facts_dir);

// The nvrtc-facts file's text for libraries known by `identity` (nvrtc_facts writes it), and what
// it says read back: nothing unless it was written for `identity` and its numbers are ones NVRTC
// could report (a file in a cache directory is data).
std::string nvrtc_facts_file(const std::string& identity, const NvrtcFacts& facts);
std::optional<NvrtcFacts> read_nvrtc_facts(const std::string& text, const std::string& identity);

// Loads both libraries now: in a process about to fork workers that compile with NVRTC, so that each
// inherits them. "" when loaded, else why not (each call then fails with that reason).
std::string load_nvrtc();

}  // namespace kiln::compile
