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

// nvcc's relocatable (-dc) output names an internal-linkage symbol after its module:
// "__nv_static_<N>_<N characters>_<the symbol>". The symbol itself is what the name means.
std::string_view without_module_prefix(std::string_view lowered) {
  constexpr std::string_view prefix = "__nv_static_";
  if (!lowered.starts_with(prefix)) return lowered;
  std::string_view rest = lowered.substr(prefix.size());
  std::size_t length = 0, digits = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9' && digits < 6)
    length = length * 10 + static_cast<std::size_t>(rest[digits++] - '0');
  if (digits == 0 || rest.size() < digits + 1 + length + 1 || rest[digits] != '_' || rest[digits + 1 + length] != '_')
    return lowered;
  return rest.substr(digits + 1 + length + 1);
}

// The whole demangled signature, or nothing for extern "C" names and names that do not demangle.
std::optional<std::string> demangle(std::string_view lowered) {
  lowered = without_module_prefix(lowered);
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

std::string image_variable_name(std::string_view lowered) {
  const std::string name = canonical_kernel_name(lowered);
  if (name.empty() || name.starts_with('$') || name.starts_with("__") || name.find("_INTERNAL") != std::string::npos)
    return {};
  for (const std::string_view toolkit : {"cub::", "thrust::", "cuda::", "cooperative_groups::", "nv::", "std::"})
    if (name.starts_with(toolkit)) return {};
  return name;
}

bool is_device_runtime_symbol(std::string_view symbol) {
  return symbol.starts_with("__nv_static_") && symbol.find("_cuda_device_runtime_cu_") != std::string_view::npos;
}

}  // namespace kiln::package
