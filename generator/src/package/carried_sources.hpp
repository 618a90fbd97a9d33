// The sources a unit built with `carry_sources` carries into the package (CARRIED_UNITS), laid out as a
// tree of relative paths so that the runtime can compile new instantiations of its kernels with
// exactly the build's inputs: the source and every header its compile read, the include directories
// moved into the tree, the options. Never an absolute path: files under the manifest's directory keep
// their paths relative to it, the toolkit's, the build directory's and Kiln's go under "_cuda/",
// "_build/" and "_kiln/" (as "<cuda>/...", "<build>/..." and "<kiln>/..." are recorded: `roots`), and
// those of an include directory outside the tree under "_include<k>/".
#pragma once

#include "compile/toolkit.hpp"
#include "writer/package_writer.hpp"
#include "plan/planned_unit.hpp"
#include "util/named_roots.hpp"
#include "util/result.hpp"

#include <filesystem>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace kiln::package {

struct CarriedOrWhy {
  std::optional<format::PackageCarriedUnit> carried;
  std::string why_not;          // set when nothing is carried: what the warning says
};

// `headers`: every header the unit's compiles opened, as NVRTC named them (relative to `root`, or
// absolute). Fails when a file cannot be read; a unit that cannot be carried (nvcc-routed, a link
// group, a header outside the tree) gives `why_not`.
Result<CarriedOrWhy> carry_unit_sources(const plan::PlannedUnit& unit, const std::set<std::string>& headers,
                                        const std::filesystem::path& root, const compile::Toolkit& toolkit,
                                        const NamedRoots& roots);

}  // namespace kiln::package
