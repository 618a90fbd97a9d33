#include "scan/tolerated_errors.hpp"

#include <clang/AST/Decl.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticAST.h>
#include <clang/Basic/DiagnosticParse.h>
#include <clang/Basic/DiagnosticSema.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Basic/TokenKinds.h>

#include <cctype>

namespace kiln::scan::detail {

namespace {

// The text of the file `loc` is spelled in, and `loc`'s offset in it (macro arguments and bodies
// map to where they are written).
bool spelled_at(const clang::Diagnostic& info, std::string_view& text, std::size_t& offset) {
  if (!info.hasSourceManager() || info.getLocation().isInvalid()) return false;
  const clang::SourceManager& sources = info.getSourceManager();
  const auto [file, at] = sources.getDecomposedLoc(sources.getSpellingLoc(info.getLocation()));
  const std::optional<llvm::StringRef> buffer = sources.getBufferDataOrNone(file);
  if (!buffer || at > buffer->size()) return false;
  text = std::string_view(buffer->data(), buffer->size());
  offset = at;
  return true;
}

bool identifier_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The attribute list comes right after a CUDA specifier macro: `__shared__ alignas(16) float a[256];`,
// `__device__ [[maybe_unused]] int x;`, `__shared__ __align__(16) alignas(16) ...`. nvcc's front end
// takes the CUDA specifiers as keywords, clang sees the GNU attributes they expand to, after which
// C++11 attributes may not appear.
bool after_cuda_specifier(const clang::Diagnostic& info) {
  std::string_view text;
  std::size_t end = 0;
  if (!spelled_at(info, text, end)) return false;
  while (end > 0 && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  if (end > 0 && text[end - 1] == ')') {   // __align__(16), __launch_bounds__(256): skip the arguments
    int depth = 0;
    while (end > 0) {
      const char c = text[--end];
      depth += c == ')' ? 1 : c == '(' ? -1 : 0;
      if (depth == 0) break;
    }
    while (end > 0 && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  }
  std::size_t begin = end;
  while (begin > 0 && identifier_char(text[begin - 1])) --begin;
  const std::string_view word = text.substr(begin, end - begin);
  return word.size() > 4 && word.starts_with("__") && word.ends_with("__");
}

// Inside the operand list of an inline asm statement: after `asm [qualifiers] (` and one of its
// top-level colons, before its closing parenthesis. Strings, character literals and comments are
// skipped while the parentheses are counted.
bool in_asm_operands(const clang::Diagnostic& info) {
  std::string_view text;
  std::size_t at = 0;
  if (!spelled_at(info, text, at)) return false;
  const std::size_t window = at > 8192 ? at - 8192 : 0;
  for (std::size_t kw = at; kw-- > window;) {
    if (text.compare(kw, 3, "asm") != 0) continue;
    std::size_t begin = kw;
    while (begin > 0 && text[begin - 1] == '_') --begin;
    std::size_t i = kw + 3;
    while (i < text.size() && text[i] == '_') ++i;
    if ((begin > 0 && identifier_char(text[begin - 1])) || (i < text.size() && identifier_char(text[i]))) continue;
    int depth = 0, colons = 0;
    for (; i < text.size(); ++i) {
      const char c = text[i];
      if (i == at) return depth > 0 && colons > 0;
      if (c == '"' || c == '\'') {
        for (++i; i < text.size() && text[i] != c; ++i)
          if (text[i] == '\\') ++i;
      } else if (c == '/' && i + 1 < text.size() && (text[i + 1] == '/' || text[i + 1] == '*')) {
        const std::size_t close = text.find(text[i + 1] == '/' ? "\n" : "*/", i + 2);
        i = close == std::string_view::npos ? text.size() : close;
      } else if (c == '(') {
        ++depth;
      } else if (c == ')') {
        if (--depth <= 0) break;
      } else if (c == ':' && depth == 1) {
        ++colons;
      } else if (depth == 0 && !std::isspace(static_cast<unsigned char>(c)) && !identifier_char(c)) {
        break;   // `asm` not followed by qualifiers and '(': not an asm statement
      }
    }
    return false;   // the nearest asm statement does not contain the error
  }
  return false;
}

bool expects_closing_parenthesis(const clang::Diagnostic& info) {
  return info.getNumArgs() == 1 && info.getArgKind(0) == clang::DiagnosticsEngine::ak_tokenkind &&
         info.getRawArg(0) == static_cast<std::uint64_t>(clang::tok::r_paren) && in_asm_operands(info);
}

// nvcc's "C" constraint: a compile-time constant string spliced into the asm text
// (`asm("mov.u32 %0, %1;" : "=r"(r) : "C"(k_name))` with `constexpr char k_name[] = "%laneid";`).
bool constant_string_constraint(const clang::Diagnostic& info) {
  if (info.getNumArgs() != 1) return false;
  const auto kind = info.getArgKind(0);
  const std::string_view constraint = kind == clang::DiagnosticsEngine::ak_std_string ? info.getArgStdStr(0)
                                      : kind == clang::DiagnosticsEngine::ak_c_string ? info.getArgCStr(0)
                                                                                       : "";
  return constraint == "C";
}

struct Tolerated {
  unsigned id;
  bool (*applies)(const clang::Diagnostic&);   // nullptr: wherever it occurs
  std::string_view why;
};

// Each entry: a clang 19 diagnostic ID (clang/Basic/Diagnostic*Kinds.inc), where it counts, and why.
// `child<<<1, 32>>>(out)` inside a kernel or device function: dynamic parallelism, which nvcc and
// NVRTC compile with -rdc=true and clang 19 does not support at all (not even with -fgpu-rdc).
bool device_side_launch(const clang::Diagnostic& info) {
  // The targets are given as integers, signed or not depending on the call site.
  const auto integer = [&](unsigned i) {
    const auto kind = info.getArgKind(i);
    return kind == clang::DiagnosticsEngine::ak_uint || kind == clang::DiagnosticsEngine::ak_sint;
  };
  if (info.getNumArgs() < 4 || !integer(0) || !integer(3)) return false;
  const std::uint64_t callee = info.getRawArg(0), caller = info.getRawArg(3);
  if (caller != 0 /* __device__ */ && caller != 1 /* __global__ */) return false;
  if (callee == 1 /* __global__ */) return true;
  // A launch with a stream or shared memory makes clang call its host-side launch configuration.
  if (callee != 2 /* __host__ */ || info.getArgKind(2) != clang::DiagnosticsEngine::ak_nameddecl) return false;
  const auto* decl = reinterpret_cast<const clang::NamedDecl*>(info.getRawArg(2));
  return decl != nullptr && decl->getName() == "__cudaPushCallConfiguration";
}

// The call a device-side launch makes, `k<<<g, b, shared, stream>>>(...)` or `k<T, 4><<<...>>>`:
// at the error's place the kernel's name, its template arguments, then `<<<`. Clang rejects the
// launch configuration in device code and then finds no function for the call.
bool call_of_device_launch(const clang::Diagnostic& info) {
  std::string_view text;
  std::size_t at = 0;
  if (!spelled_at(info, text, at)) return false;
  while (at < text.size() && (identifier_char(text[at]) || text[at] == ':')) ++at;
  const auto skip_space = [&] {
    while (at < text.size() && std::isspace(static_cast<unsigned char>(text[at]))) ++at;
  };
  skip_space();
  if (text.substr(at, 3) == "<<<") return true;
  if (at >= text.size() || text[at] != '<') return false;
  for (int depth = 0; at < text.size(); ++at) {   // the template arguments, balanced
    depth += text[at] == '<' ? 1 : text[at] == '>' ? -1 : 0;
    if (depth == 0) break;
  }
  ++at;
  skip_space();
  return text.substr(at, 3) == "<<<";
}

constexpr Tolerated k_tolerated[] = {
    // ... whose call then matches no function: the kernel is still seen, its launch is not.
    {clang::diag::err_ovl_no_viable_function_in_call, call_of_device_launch,
     "nvcc accepts a kernel launched from device code (dynamic parallelism, with -rdc=true)"},
    // A kernel launched from device code (dynamic parallelism): clang marks the call invalid and
    // parses on; the kernels themselves are seen.
    {clang::diag::err_ref_bad_target, device_side_launch,
     "nvcc accepts a kernel launched from device code (dynamic parallelism, with -rdc=true)"},
    // `__shared__ T x;` where T has a non-empty constructor: nvcc warns and does not run it; clang
    // marks the variable invalid and parses on.
    {clang::diag::err_shared_var_init, nullptr,
     "nvcc accepts a __shared__ variable whose type has a constructor (it does not run it)"},
    // `__shared__ alignas(16) float a[256];`: clang drops the attribute list and parses on.
    {clang::diag::err_attributes_not_allowed, after_cuda_specifier,
     "nvcc accepts an attribute list after a CUDA specifier such as __shared__"},
    // `asm("..." : "=r"(x) : "r"(a) "r"(b));`: nvcc takes the operands without the comma; clang
    // drops the asm statement, which names no kernel.
    {clang::diag::err_expected, expects_closing_parenthesis,
     "nvcc accepts inline asm operands that are not separated by commas"},
    // `asm("mov.u32 %0, %laneid;" ...)`: nvcc passes an unescaped % through to PTX; clang drops the
    // asm statement.
    {clang::diag::err_asm_invalid_escape, nullptr, "nvcc accepts an unescaped % in an inline asm string"},
    // An input operand with nvcc's "C" constraint, which clang does not know; clang drops the asm
    // statement.
    {clang::diag::err_asm_invalid_input_constraint, constant_string_constraint,
     "nvcc accepts the \"C\" (constant string) constraint in inline asm"},
    // `int a[n] = {0};` in host code: the host compiler (GCC) accepts initialized variable-length
    // arrays as an extension; clang marks the variable invalid and parses on.
    {clang::diag::err_variable_object_no_init, nullptr,
     "nvcc accepts an initialized variable-length array in host code (a GCC extension)"},
};

}  // namespace

std::string_view tolerated_error(const clang::Diagnostic& info) {
  for (const Tolerated& t : k_tolerated)
    if (info.getID() == t.id && (!t.applies || t.applies(info))) return t.why;
  return {};
}

}  // namespace kiln::scan::detail
