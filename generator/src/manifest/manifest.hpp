// kiln.toml as plain data: what to compile, for which targets, with which options. The reader
// (manifest_reader.hpp) fills it and rejects anything it does not understand; later stages never see
// TOML.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace kiln::manifest {

// A place in the manifest (1-based); line 0: the whole file, column 0: the whole line.
struct Position {
  int line = 0;
  int column = 0;
};

struct SourceEntry {
  std::string path{};                        // relative to the manifest directory, '/'-separated
  int line = 0;                              // where the [[source]] entry starts in the manifest
  int column = 0;
  // Name expressions to build, as written, after expanding cross products ("block_sum<float, 256>").
  std::vector<std::string> instantiations{};
  // Where each came from, parallel to `instantiations`: the `instantiate` entry itself, or the
  // `kernel` pattern of a [[source.template]]. Errors about an expression point there.
  std::vector<Position> instantiation_positions{};
  // __device__/__constant__ variables the host reads or fills; kept through trimming.
  std::vector<std::string> variables{};
  std::vector<std::string> defines{};        // added to the package-wide ones: "N=4", "FAST"
  std::vector<std::string> options{};        // added to the package-wide NVRTC options
  // Searched after the package-wide include_dirs, for this entry's unit only; the same forms. Those
  // the package-wide list has already are left out (the reader drops them).
  std::vector<std::string> include_dirs{};
  // A variant's name ("f64"): the source compiled once more as a unit of its own, whose kernels are
  // found as "<variant>/<name>" (and by their plain names where no other kernel has them). "": none.
  std::string variant{};
  // The device link group the source joins ("physics"), set by 'link_group'; a source whose options
  // say -rdc=true joins the package's group, "rdc", which the plan names. "": none named here.
  std::string link_group{};
  Position variant_position{};               // where 'variant' / 'link_group' are, for messages
  Position link_group_position{};
  // 'carry_sources': the package holds this source's text, every header its build read and its
  // options, so that the runtime can compile more of its kernels (other instantiations, other GPUs).
  // Unset: the manifest's top-level 'carry_sources'.
  std::optional<bool> carry_sources{};
  // 'kernels_per_image': the most kernels the compiler may put in one image of this source (image
  // parts, plan/image_parts.hpp). Unset: the manifest's top-level 'kernels_per_image'.
  std::optional<std::size_t> kernels_per_image{};
  std::vector<Position> variable_positions{}; // parallel to `variables` (last: aggregates list fields in order)
};

// The default 'kernels_per_image'. On an H200 the driver loads an image of 16 small kernels in 1.2
// times the time of one of 10, and of 32 in 2.3 times, where one of 10,000 takes a thousand times as
// long; each part costs its source another parse (bench/results/image-parts.md).
inline constexpr std::size_t k_default_kernels_per_image = 16;
// Its largest value: beyond it a bound bounds nothing a real unit reaches.
inline constexpr std::size_t k_most_kernels_per_image = 1'000'000;

// Where kiln_add_cache() was called, for a manifest it generated ('cmake_call'): errors about the
// values the call gave are reported there, under CMake's names for them (INSTANTIATE, OPTIONS).
struct CMakeCall {
  std::string file;                          // relative to the manifest's root: "CMakeLists.txt"
  int line = 0;                              // 0: the call's line could not be told
};

struct Manifest {
  std::filesystem::path path;                // the kiln.toml that was read (as given)
  std::filesystem::path root;                // its directory: every relative path is relative to it
  std::string name;                          // package name; default: the manifest directory's name
  std::vector<std::string> targets;          // validated target strings; empty: the generator's default
  std::vector<Position> target_positions;    // parallel to `targets` where the manifest lists them, else empty
  std::vector<std::string> include_dirs;     // relative to root, or "<cuda>/..." toolkit tokens
  std::vector<std::string> defines;
  std::vector<std::string> options;          // NVRTC options, e.g. "-use_fast_math", "-std=c++20"
  bool toolkit_includes = true;              // add <cuda>/include and <cuda>/include/cccl
  // zstd-compress images where that saves space. Off by default: decoding adds tens of microseconds
  // to each image's first load in a fresh process, and archives (wheels) compress the file anyway.
  bool compress = false;
  // Keep only the __device__/__constant__ variables a kernel uses or the host asks for (the
  // manifest's 'variables', host requests), as runtime-compilation libraries' "remove unused
  // globals" does: variables the scan merely saw declared lose their symbols when nothing uses
  // them. Off by default: then every variable the user's sources declare keeps its name.
  bool remove_unused_variables = false;
  // Every source's 'carry_sources' unless it sets its own. Off by default: the texts make the package
  // larger (CUB's headers add about 300 KB compressed), and most packages list what they need.
  bool carry_sources = false;
  // Every source's 'kernels_per_image' unless it sets its own: a unit asked for more instantiations
  // is built as parts of at most this many kernels each, so that the first use of one kernel loads
  // a small image (plan/image_parts.hpp). 0: never split.
  std::size_t kernels_per_image = k_default_kernels_per_image;
  std::vector<SourceEntry> sources;
  // Top-level 'instantiate': name expressions for the package, each built by the source(s) whose code
  // defines the kernel or kernel template it names (plan/discovery.hpp routes them), with where each
  // is written (parallel).
  std::vector<std::string> instantiations;
  std::vector<Position> instantiation_positions;
  // Top-level 'variables': __device__/__constant__ variables, each kept by the source(s) that declare it.
  std::vector<std::string> variables;
  std::vector<Position> variable_positions;
  // Set for a manifest kiln_add_cache() generated.
  std::optional<CMakeCall> cmake_call;
  // Host files (relative to root, like sources) that are only scanned for requests to the Kiln
  // runtime (pkg.kernel("k<float>")); never compiled. Kernel sources are scanned for them anyway.
  std::vector<std::string> host_sources;
  // Python files (relative to root) scanned the same way, with Python's own parser, for the names
  // they pass to the Kiln binding (pkg.kernel("k<float>"), .image, .cupy_kernel, .cuda_core_kernel).
  std::vector<std::string> python_sources;
};

}  // namespace kiln::manifest
