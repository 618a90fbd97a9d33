// Whether two paths name the same file, compared as files rather than as strings: "./k.cu", a
// symbolic link to k.cu and a hard link to it are all k.cu. kiln build uses it to refuse an output
// that would overwrite one of its own inputs.
#pragma once

#include <filesystem>

namespace kiln {

// True when both exist and have the same device and inode, or when either does not exist and both
// have the same canonical path (symbolic links in the existing part resolved).
bool same_file(const std::filesystem::path& a, const std::filesystem::path& b);

}  // namespace kiln
