// A package read back into the writer's plain data: what `kiln split` rewrites. Writing the result
// with the options the package was written with gives the same bytes (package_contents_test.cpp).
#pragma once

#include "format/package_reader.hpp"
#include "writer/package_writer.hpp"

namespace kiln::format {

// Every table of an open package as PackageContents: images decoded and checked (IMAGE_CORRUPT
// naming the image otherwise), carried texts decoded and checked, each kernel's names from NAMES.
// Sections this reader does not know are not kept.
Result<PackageContents> read_contents(const PackageReader& reader);

// Whether any image of the package is stored compressed: the WriteOptions::compress to write it
// again with.
bool any_image_compressed(const PackageReader& reader);

}  // namespace kiln::format
