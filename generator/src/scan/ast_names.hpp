// What the collectors share: whose file a declaration is in, locations as plain data, and the NVRTC
// name expression of a kernel template specialization.
#pragma once

#include "scan/scan_result.hpp"
#include "util/diagnostic.hpp"

#include <clang/Basic/SourceLocation.h>

#include <filesystem>
#include <optional>
#include <string>
#include <unordered_map>

namespace clang {
class FunctionDecl;
class NamedDecl;
class SourceManager;
}  // namespace clang

namespace kiln::scan::detail {

class SourceFacts {
public:
  SourceFacts(const clang::SourceManager& sources, const std::filesystem::path& cuda_root);

  // The user's own code: not a system header (the toolkit, libstdc++, clang's headers), not under
  // the CUDA root, not a scanner support file.
  bool is_user(clang::SourceLocation loc) const;
  bool is_user_file(clang::FileID file) const;
  // The same for a file known by its name, real path and whether it was found as a system header
  // (a file a precompiled preamble read, which this parse never entered).
  bool is_user_path(std::string_view name, std::string_view real_path, bool system) const;
  // The file location of `loc` (macro expansions map to where they are expanded), as plain data.
  Location location(clang::SourceLocation loc) const;
  const clang::SourceManager& sources() const { return m_sources; }

private:
  const clang::SourceManager& m_sources;
  std::filesystem::path m_cuda_root, m_cuda_root_canonical;
  mutable std::unordered_map<unsigned, bool> m_user;   // FileID hash -> is_user
};

// "ns::k", "(anonymous namespace)::k": how Kernel::qualified_name spells a declaration.
std::string qualified_name(const clang::NamedDecl& decl);

// The NVRTC name expression of a kernel template specialization, e.g. "ns::k<float, 256>": the
// template's name with anonymous and inline namespaces left out (both are reachable without them),
// then every argument, defaults included, with canonical types. An error, whose message is the
// reason, when an argument cannot be spelled in source (a lambda, a local or unnamed type).
Result<std::string> name_expression(const clang::FunctionDecl& specialization);

// The same name as a demangler spells the symbol nvcc gives it, where that differs: enumerator
// arguments as their value, "k<(Mode)3>" for "k<Mode::fast>". Kiln finds the kernel of an nvcc-built
// unit by demangling its symbols, so an enumerator alone would match nothing. "" when the same.
std::string symbol_form(const clang::FunctionDecl& specialization);

// clang's Itanium mangling of a kernel (the device-side name, not the host stub's), for
// Instantiation::mangled_name. "" when clang would not mangle it (extern "C").
std::string mangled_name(const clang::FunctionDecl& kernel);

}  // namespace kiln::scan::detail
