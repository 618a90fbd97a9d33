// kiln verify's check that no byte of the file escapes it: the format's readers accept a longer
// buffer (an embedded copy may be padded) and skip header bytes past offset 64, which no checksum
// covers; a package file on disk must have neither trailing bytes after `file_size` nor non-zero
// bytes there (docs/package-format.md, "File layout").
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace kiln::cli {

// Problems, each naming `name` and the offsets; `file` is a package the reader has opened (so its
// header is sound).
std::vector<std::string> check_uncovered_bytes(std::span<const std::byte> file, const std::string& name);

}  // namespace kiln::cli
