// Preprocessor callbacks: every header the translation unit reads, with its content hash, and what
// the user's files say about host code and GPU architectures.
#pragma once

#include "scan/parse.hpp"

#include <memory>

namespace clang {
class PPCallbacks;
}  // namespace clang

namespace kiln::scan::detail {

class SourceFacts;

// Fills output.found.headers (in the order first read), output.cuda_runtime_included,
// output.arch_conditionals and a warning per line with a branch for sm_100 or later.
std::unique_ptr<clang::PPCallbacks> make_header_tracker(const SourceFacts& facts, ParseOutput& output);

}  // namespace kiln::scan::detail
