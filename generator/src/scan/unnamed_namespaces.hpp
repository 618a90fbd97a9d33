// The spellings of an unnamed namespace that compilers and demanglers print, which no compiler
// accepts back in source. Header-only: discovery (kiln_plan) reads requests with it without clang.
#pragma once

#include <array>
#include <cctype>
#include <string>
#include <string_view>

namespace kiln::scan {

// clang and GCC's demangler, EDG (nvcc's messages, cu++filt), GCC's diagnostics, MSVC.
inline constexpr std::array<std::string_view, 4> k_unnamed_namespace_spellings = {
    "(anonymous namespace)", "<unnamed>", "{anonymous}", "`anonymous namespace'"};

// "(anonymous namespace)::b::a", "<unnamed>::b::a", "ns::{anonymous}::a" -> "b::a", "ns::a": a member
// of an unnamed namespace is reachable from the enclosing scope without naming it, which is how an
// NVRTC name expression and the scanner's probes must write it. Other text is unchanged.
inline std::string without_unnamed_namespaces(std::string_view name) {
  std::string out(name);
  for (const std::string_view spelling : k_unnamed_namespace_spellings) {
    for (std::size_t at = out.find(spelling); at != std::string::npos; at = out.find(spelling, at)) {
      std::size_t end = at + spelling.size();
      // Where a scope may start: "foo<unnamed>::bar" is a template-id, not an unnamed namespace.
      std::size_t before = at;
      while (before > 0 && std::isspace(static_cast<unsigned char>(out[before - 1]))) --before;
      if (before > 0 && std::string_view(":<,(").find(out[before - 1]) == std::string_view::npos) {
        at = end;
        continue;
      }
      while (end < out.size() && std::isspace(static_cast<unsigned char>(out[end]))) ++end;
      if (out.compare(end, 2, "::") != 0) {
        at = end;   // not a scope: "<unnamed>" as a template argument list is something else
        continue;
      }
      end += 2;
      while (end < out.size() && std::isspace(static_cast<unsigned char>(out[end]))) ++end;
      out.erase(at, end - at);
    }
  }
  return out;
}

}  // namespace kiln::scan
