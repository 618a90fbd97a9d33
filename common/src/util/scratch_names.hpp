// Scratch files kiln keeps next to an output while it builds: the build's scratch directory
// (.<output>.build-<pid>-XXXXXX/) and the temporary file a package or depfile is written to before it
// is renamed into place (.<output>.tmp-<pid>-XXXXXX). The owner holds a flock on each for as long as
// it lives, so a killed build's leftovers can be told from a live build's: the next build of the same
// output removes those whose owner is gone (not running, and not holding the lock).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace kiln {

// mkdtemp/mkstemp's template for a scratch entry of `output`: "<dir>/.<name>.<kind>-<pid>-XXXXXX", the
// name spelt plainly (util/plain_names.hpp: "a b.kiln" gives ".a@20b.kiln.build-...").
std::string scratch_template(const std::filesystem::path& output, std::string_view kind);

// Takes an exclusive lock on `fd` without waiting; false when another open file holds one.
bool try_lock(int fd);

// Removes the scratch directories and temporary files of `output` that killed builds left behind.
// Those of running builds (this one's included) stay.
void remove_stale_scratch(const std::filesystem::path& output);

// Removes every temporary file of write_file_atomically in `dir` (".<name>.tmp-<pid>-XXXXXX") whose
// owner is gone: the scan cache's, after a killed build.
void remove_stale_temporaries(const std::filesystem::path& dir);

}  // namespace kiln
