#include "package/kernel_names.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <optional>

namespace kiln::package {

std::string strip_signature(std::string_view demangled) {
  std::string_view s = demangled;
  // Itanium mangling spells the return type for template functions only; kernels return void.
  if (s.substr(0, 5) == "void ") s.remove_prefix(5);
  if (!s.empty() && s.back() == ')') {
    // Walk back to the '(' that opens the parameter list; parameters may hold parentheses of their own.
    int depth = 0;
    for (std::size_t i = s.size(); i-- > 0;) {
      if (s[i] == ')') ++depth;
      if (s[i] == '(' && --depth == 0) {
        s = s.substr(0, i);
        break;
      }
    }
  }
  return std::string(s);
}

namespace {

// The whole demangled signature, or nothing for extern "C" names and names that do not demangle.
std::optional<std::string> demangle(std::string_view lowered) {
  if (lowered.substr(0, 2) != "_Z") return std::nullopt;
  int status = 0;
  const std::string name(lowered);
  std::unique_ptr<char, decltype(&std::free)> demangled(
      abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), &std::free);
  if (status != 0 || !demangled) return std::nullopt;
  return std::string(demangled.get());
}

}  // namespace

std::string canonical_kernel_name(std::string_view lowered) {
  const std::optional<std::string> demangled = demangle(lowered);
  return demangled ? strip_signature(*demangled) : std::string(lowered);
}

bool is_template_instance(std::string_view lowered) {
  const std::optional<std::string> demangled = demangle(lowered);
  return demangled && demangled->starts_with("void ");
}

}  // namespace kiln::package
