// NVRTC and nvJitLink, loaded the first time the generator needs them, not at kiln's start: mapping
// both costs every kiln process about 19 ms, and a build whose units nvcc compiles calls neither.
// They are the files this kiln was built against, bound into the compile library's table
// (jit/src/nvrtc/compiler_loader.hpp, the one binding run-time compiles use too) once per process;
// the variables that steer run-time compiles (KILN_NVRTC, KILN_NVJITLINK, CUDA_PATH) do not move
// them. What every build needs of them, their versions and NVRTC's architectures, was asked when kiln
// was configured and is built in with the libraries' identities (path, size, modification time);
// for other files (a kiln moved to another toolkit) it is kept in a small file beside the user's
// cache. So a build loads them only to compile or link with them.
#pragma once

#include "check/nvrtc_facts.hpp"
#include "nvrtc/compiler_api.hpp"
#include "util/result.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kiln::compile {

// The files NVRTC and nvJitLink are loaded from: `built_in` (those kiln was configured with) while
// both exist, else NVRTC `major`'s by soname in the toolkit at `toolkit_root` (lib64/, or lib/ where
// NVIDIA's wheels put them), else `built_in` still, whose absence the load reports. An empty root:
// `built_in`.
struct CompilerFiles {
  std::filesystem::path nvrtc, nvjitlink;
};
CompilerFiles compiler_files(const CompilerFiles& built_in, const std::filesystem::path& toolkit_root, int major);

// The toolkit whose libraries stand in for absent built-in ones (find_toolkit sets it, before any
// load; a forked worker inherits it).
void use_toolkit_libraries(const std::filesystem::path& toolkit_root);

// The build's NVRTC and nvJitLink (compiler_files of the configured ones), loaded on the first
// call and kept for the process; every later call gives the same table, or the same error
// ("kiln cannot load <file>: <the system's message>").
Result<const jit::CompilerApi*> nvrtc_api();

// Versions and architectures (check/nvrtc_facts.hpp: plain data, which the configure-time checker reads too).
using check::NvrtcFacts;

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
// inherits them. An error says why not; each compile then fails with it.
Status load_nvrtc();

}  // namespace kiln::compile
