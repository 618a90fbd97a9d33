// The kernel sources' entries of a JSON compilation database (clang's format, the one CMake writes as
// compile_commands.json), so that clangd, clang-tidy and other tools read each unit with the include
// directories, macros and options its compile used (kiln build --compile-commands). CMake never
// compiles a cache's kernels, so its own database leaves them out; kiln_add_cache merges these
// entries into it (kiln compile-commands).
//
// An entry is the compiler of record's command, spelt as nvcc's (what CMake writes for a CUDA source
// too, and what a reader of such databases already knows): the unit's lowest target as -arch, its
// include directories absolute (a database is one machine's), its macros and options, and none of
// Kiln's own (seeds, precompiled headers, time traces, its workspace's names). Kiln defines no macro of
// its own for a compile. Its `output` is the package: the merge replaces a package's entries by it.
#pragma once

#include "plan/build_plan.hpp"
#include "util/result.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::build {

struct CompileCommand {
  std::filesystem::path directory;          // where the compile runs: the manifest directory
  std::filesystem::path file;               // the source, absolute
  std::vector<std::string> arguments;       // nvcc ... -c <file>
  std::filesystem::path output;             // the package, absolute
};

// One entry per unit (a variant its own, each member of a link group its own; image parts after the
// first, the same compile of the same file, none), in the plan's unit order.
std::vector<CompileCommand> compile_commands(const plan::BuildPlan& plan, const std::filesystem::path& package);

// The database's text: a JSON array of {directory, file, arguments, output}, ending in a line break.
std::string database_text(const std::vector<CompileCommand>& commands);

// Writes `text` to `path` whole (a temporary file renamed), unless `path` holds it already: then
// nothing is written and its time stays, so nothing that depends on it runs again.
Status write_if_changed(const std::filesystem::path& path, std::string_view text);

// `database` (a compilation database's text; empty: none yet) with every entry whose output is a
// package that one of `fragments` (databases kiln build wrote) names dropped, and the fragments'
// entries added after the rest. A text that is not a JSON array of objects is an error naming `names`'
// file (`names[0]` is the database's, then one per fragment).
Result<std::string> merged_database(std::string_view database, const std::vector<std::string>& fragments,
                                    const std::vector<std::string>& names);

}  // namespace kiln::build
