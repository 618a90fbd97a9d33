// kiln split's rewrite, on plain data: one package's contents become a main file (the index and
// every PTX image, and the carried sources) and one companion per compute-capability major of its
// cubins (format/split_files.hpp). Every file keeps every kernel, unit and variable, so indices agree
// across the files; a kernel that only some images hold, none of them in a file, is flagged
// k_kernel_in_other_file there.
#pragma once

#include "writer/package_writer.hpp"
#include "util/result.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::package {

struct SplitFile {
  std::uint16_t major = 0;            // 0: the main file; else the companion of this major
  format::PackageContents contents;
};

// The main file first, then the companions by major. `split_id` goes into every file's METADATA.
// Fails for a package that is already a split's file. A package without cubins gives the main
// file alone.
Result<std::vector<SplitFile>> split_package(const format::PackageContents& package, const std::string& split_id);

}  // namespace kiln::package
