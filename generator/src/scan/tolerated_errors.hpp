// Errors clang 19 reports where nvcc, the compiler of record, accepts the code. No header can make
// clang accept these, and clang's recovery drops only the offending piece (an initializer, an
// attribute list, one asm statement), so what the scanner reads from the AST (kernels,
// instantiations, launches, requests) is still whole. Such an error does not fail the scan: it
// becomes a warning. Every other error still does. The list is in tolerated_errors.cpp, with the
// reason for each entry; keep it minimal.
#pragma once

#include <string_view>

namespace clang {
class Diagnostic;
}

namespace kiln::scan::detail {

// Why nvcc accepts the code of this error, for the warning that replaces it; empty when the error
// is not one of the tolerated ones (or not in the context that makes it one).
std::string_view tolerated_error(const clang::Diagnostic& info);

}  // namespace kiln::scan::detail
