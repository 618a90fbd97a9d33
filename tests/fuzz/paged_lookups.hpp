// The package fuzzer's differential half (README.md): every lookup of a package read by pages
// against the same lookup of the package read whole from memory.
#pragma once

#include <cstddef>
#include <vector>

namespace kiln::fuzz {

// `file` (its checksums and index pages right, so that the tables' rules are what decides) written
// to a file and opened by pages (KILN_INDEX_PAGES=1), and opened from memory. Where the memory open
// succeeds, every lookup (by name: kernel, status and the image chosen for several architectures;
// by index: the names) answers the same by pages. Where it fails, a lookup by pages fails, or finds
// a kernel whose own name (canonical or lowered) was asked for and whose records pass their checks:
// never a kernel that another kernel's name, or an alias no whole check stands behind, leads to.
// Aborts where that breaks.
void compare_paged_lookups(const std::vector<std::byte>& file);

}  // namespace kiln::fuzz
