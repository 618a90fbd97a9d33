// Kernel sources that start with the same #include lines, in one directory, with the same options,
// share one precompiled preamble for their device parse (scan::make_preamble_pch): clang parses the
// headers they share once instead of once per source. KILN_SCAN_PCH=0 turns it off.
#pragma once

#include "scan/scanner.hpp"
#include "util/process_pool.hpp"

#include <filesystem>
#include <vector>

namespace kiln::build {

// Makes one PCH in `pool.scratch_dir` for each group of two or more of `candidates` (indices into
// `inputs`) that preamble_key puts together, in worker processes as `pool` says (in this process
// for one), and sets those sources' preamble_pch. A group whose PCH cannot be made is parsed as
// before. Returns the PCHs made: the caller removes them (scan::remove_preamble_pch) after the scans.
std::vector<std::filesystem::path> share_preambles(std::vector<scan::ScanInput>& inputs,
                                                   const std::vector<std::size_t>& candidates,
                                                   const ProcessPoolSettings& pool);

}  // namespace kiln::build
