// kiln verify's checks of carried sources (CARRIED_UNITS), beyond the structure the reader checks at
// open: every text decodes and matches its hash, and every unit holds only what a build carries
// (options/carried_rules.hpp: paths, include directories, options, link options, kernel names, the
// bytes its files write), as the runtime checks before it compiles one. These cost time in
// proportion to the texts, so opening a package skips them and verify makes them.
#pragma once

#include "format/package_reader.hpp"

#include <string>
#include <vector>

namespace kiln::cli {

// Problems, each naming the unit and the file ("kernels/a.cu: carried header 'x/../y.h' ...").
std::vector<std::string> check_carried_sources(const format::PackageReader& reader);

}  // namespace kiln::cli
