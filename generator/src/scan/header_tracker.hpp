// Preprocessor callbacks: every header the translation unit reads, with its content hash, and what
// the user's files say about host code and GPU architectures.
#pragma once

#include "scan/parse.hpp"

#include <memory>

namespace clang {
class CompilerInstance;
class PPCallbacks;
}  // namespace clang

namespace kiln::scan::detail {

class SourceFacts;

// Fills output.found.headers (in the order first read), output.cuda_runtime_included,
// output.arch_conditionals and a warning per line with a branch for sm_100 or later.
std::unique_ptr<clang::PPCallbacks> make_header_tracker(const SourceFacts& facts, ParseOutput& output);

// The same facts for the files a precompiled preamble (-include-pch) read: the preprocessor of a
// parse that uses one never enters them. Their include lines are read as text (a user file that
// includes cuda_runtime.h), as their __CUDA_ARCH__ tests always are. Files named `skip` (the
// preamble's own main file) are left out.
void track_precompiled_files(clang::CompilerInstance& compiler, const SourceFacts& facts, std::string_view skip,
                             ParseOutput& output);

}  // namespace kiln::scan::detail
