// Compiler messages as the compile cache keeps them, so that an entry with warnings (or NVRTC's
// verdict that it cannot compile a source) serves any copy of the tree, from any directory: a miss
// is compiled with a token where its messages put the user's view of the manifest directory, and
// every absolute path under a named root (util/named_roots.hpp) is written with the root's name. A
// build that reads the entry renders both for itself: its own display prefix, its own directories.
#pragma once

#include "compile/compile_job.hpp"
#include "util/named_roots.hpp"

#include <string>
#include <string_view>

namespace kiln::compile {

// Where a portable message names a file relative to the manifest directory: "<display>/kernels/a.cu".
inline constexpr std::string_view k_display_token = "<display>/";

// `job` (and its members) with the display prefix of its messages replaced by k_display_token, in
// manifest_entry too.
CompileJob with_display_token(const CompileJob& job);

// A log written for with_display_token(job), its absolute paths under `roots` as their names.
std::string portable_log(const std::string& log, const NamedRoots& roots);
// A portable log as `job` (with its own display prefix) shows it, under these `roots`.
std::string rendered_log(const std::string& portable, const CompileJob& job, const NamedRoots& roots);

// What a job's messages point at besides its files (the manifest entry, the places its names come
// from), in portable form: a log is rendered for another job only when this is the same.
std::string portable_context(const CompileJob& job, const NamedRoots& roots);

}  // namespace kiln::compile
