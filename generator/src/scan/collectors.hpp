// The AST walks. Declarations (kernel_collector.cpp): kernels, explicit instantiations and
// specializations, device variables, host function definitions, request probes. References
// (host_collector.cpp): <<<>>> launches, kernels whose address is taken, and runtime requests.
#pragma once

#include "scan/parse.hpp"

namespace clang {
class ASTContext;
}  // namespace clang

namespace kiln::scan::detail {

class SourceFacts;

void collect_declarations(clang::ASTContext& context, const SourceFacts& facts, const ParseJob& job,
                          ParseOutput& output);
void collect_references(clang::ASTContext& context, const SourceFacts& facts, ParseOutput& output);

}  // namespace kiln::scan::detail
