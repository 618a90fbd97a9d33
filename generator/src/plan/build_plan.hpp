// From a manifest to compile jobs: one per (source, target), with the options NVRTC, nvcc and
// nvJitLink get. Plain data in, plain data out; nothing is compiled here.
#pragma once

#include "compile/compile_job.hpp"
#include "compile/toolkit.hpp"
#include "manifest/manifest.hpp"
#include "plan/planned_unit.hpp"
#include "util/named_roots.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace kiln::plan {

struct PlanSettings {
  std::string display_prefix{};                 // how the manifest directory looks from the user's cwd
  std::filesystem::path scratch_dir{};          // absolute; time traces go here
  std::filesystem::path build_dir{};            // <build> in include directories (util/named_roots.hpp)
  std::filesystem::path kiln_include_dir{};     // <kiln>
};

struct BuildPlan {
  std::vector<std::string> targets;             // sorted in package order
  std::vector<std::string> sources;             // the units' names, sorted; unit i is sources[i]
  std::vector<compile::CompileJob> jobs;        // source-major, then target; job.source names the unit
  std::vector<std::string> include_dirs;        // as recorded in the package (<cuda>, <build>, <kiln> tokens)
  NamedRoots roots;                             // what the tokens stand for; <root> is `root`
  std::vector<std::string> package_options;     // the NVRTC options every unit shares, as recorded
  std::vector<PlannedUnit> units;               // units[i] is sources[i]: its names and compiler
  // What make_jobs needs to build a unit's jobs again for another compiler.
  std::filesystem::path root;                   // the manifest directory, absolute
  std::filesystem::path nvcc;                   // the toolkit's nvcc
  std::filesystem::path device_runtime;         // the toolkit's libcudadevrt.a, for link groups
  std::string manifest_file;                    // "kiln.toml" (relative to root, or absolute), for messages
  PlanSettings settings;
};

// Fails on a target the toolkit's NVRTC does not support, naming it and what is supported. Each
// unit builds the manifest's names, then what `discovery` found for its source; a source with host
// code compiles with nvcc. Sources whose options say -rdc=true (the manifest's or their own) form the
// link group "rdc"; those with 'link_group' the group they name; each group is one unit.
Result<BuildPlan> make_plan(const manifest::Manifest& manifest, const compile::Toolkit& toolkit,
                            const PlanSettings& settings, const Discovery& discovery = {});

// Unit `unit`'s jobs, one per target in target order, for the unit's current compiler.
std::vector<compile::CompileJob> make_jobs(const BuildPlan& plan, std::size_t unit);

// Unit `u`, an NVRTC unit that nvcc may compile instead (nvcc_fallback), after NVRTC rejected it:
// switched to nvcc in `plan`, its jobs replaced.
void switch_unit_to_nvcc(BuildPlan& plan, std::size_t u);

}  // namespace kiln::plan
