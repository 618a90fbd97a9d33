// From compile outputs to the contents of a package: kernels read from the images, their names,
// parameters and variables, deduplicated across units, with the conflicts a user must resolve
// reported as errors that name both sources.
#pragma once

#include "compile/compile_job.hpp"
#include "compile/toolkit.hpp"
#include "writer/package_writer.hpp"
#include "manifest/manifest.hpp"
#include "plan/build_plan.hpp"
#include "plan/finding.hpp"
#include "util/result.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace kiln::package {

struct AssembleSettings {
  std::string display_prefix;       // how the manifest directory looks from the user's cwd
  std::string generator_version;    // "0.1.0"
};

struct AssembledPackage {
  format::PackageContents contents;
  std::vector<std::filesystem::path> inputs;   // manifest, sources and headers read (for the depfile)
  std::vector<plan::Finding> warnings;    // at the manifest entry concerned, or the package's own
};

// `outputs[i]` is the result of `plan.jobs[i]`; every output must be ok.
Result<AssembledPackage> assemble(const manifest::Manifest& manifest, const plan::BuildPlan& plan,
                                  const std::vector<compile::CompileOutput>& outputs,
                                  const compile::Toolkit& toolkit, const AssembleSettings& settings);

}  // namespace kiln::package
