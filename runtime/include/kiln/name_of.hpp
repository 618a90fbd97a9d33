// kiln::name_of: the name of a kernel template instantiation, from C++ types and values, spelled as
// the package records it. Included by kiln.hpp.
//
//   package.kernel(kiln::name_of<float, kiln::value<256>>("block_sum"));  // "block_sum<float, 256>"
//   kiln::name_of<const float*>("k");                                      // "k<float const*>"
//   kiln::name_of<256u, -1, 'J', Mode::fast>("k");                         // "k<256u, -1, (char)74, (Mode)1>"
//
// Types are template arguments as they are; a value among types is kiln::value<V>; a list of values
// alone may be given directly. Write each value in the type of the kernel's template parameter:
// template <unsigned N> needs 256u (or kiln::value<256u>), template <std::size_t N> needs
// std::size_t{256}, because the spelling says the type ("256u", "256ul").
//
// Why this spelling: a package finds a kernel by its canonical name, the demangled lowered name
// without return type and parameters, whatever the manifest wrote ("k<float const*>", "k<(char)74>").
// Lookups ignore whitespace that does not separate two words, nothing else. So name_of produces the
// Itanium demangler's spelling, and gets it from the demangler itself: each argument is made the
// argument of a class template of Kiln's, whose typeid name (the Itanium mangling of that argument,
// exactly as in the kernel's lowered name) is demangled with abi::__cxa_demangle and cut out. This
// covers what a hand-written table could get wrong: cv-qualifiers ("float const volatile"),
// pointers, references and arrays ("float (&) [4]"), classes in namespaces, class templates with
// their default arguments spelled out ("ns::Bar<int, 3>"), enums as "(ns::Color)2", characters as
// "(char)74", integer suffixes ("256u", "5l", "5ull") and "> >".
//
// Limits, refused at compile time rather than spelled wrongly:
//   - values must be integral (bool and character types included) or enumerations: pointer,
//     floating-point, nullptr and class-type values are mangled differently by different compilers;
//   - RTTI is needed (typeid); with -fno-rtti name_of does not compile;
//   - GCC and Clang only (Itanium C++ ABI and <cxxabi.h>); MSVC has neither.
// The spelling is that of the program's C++ runtime demangler (libstdc++'s, as the generator uses;
// libc++abi differs at most in whitespace, which lookups ignore).
#ifndef KILN_NAME_OF_HPP
#define KILN_NAME_OF_HPP

#include "kiln/error.hpp"

#include <cstdlib>
#include <initializer_list>
#include <memory>
#include <new>
#include <string>
#include <string_view>
#include <type_traits>
#include <typeinfo>

#if defined(__GNUC__)
#  include <cxxabi.h>
#endif

namespace kiln {

// A value template argument among types: name_of<float, kiln::value<256>>("block_sum").
template <auto V>
struct value {
  static constexpr auto v = V;
};

namespace detail {

// The class templates whose single argument name_of spells (their typeid names carry it mangled).
template <class T>
struct name_type_arg {};
template <auto V>
struct name_value_arg {};

template <class A>
struct name_holder {
  using type = name_type_arg<A>;
};
template <auto V>
struct name_holder<value<V>> {
  static_assert(std::is_integral_v<decltype(V)> || std::is_enum_v<decltype(V)>,
                "kiln::name_of: a value must be integral (bool and characters too) or an enumeration; pointer, "
                "floating-point, nullptr and class-type values are spelled differently by different compilers");
  using type = name_value_arg<V>;
};

template <class...>
inline constexpr bool k_dependent_false = false;

#if defined(__GNUC__) && (defined(__GXX_RTTI) || defined(__cpp_rtti))
#  define KILN_NAME_OF_AVAILABLE 1

// The argument of the holder whose typeid name is `mangled`: "kiln::detail::name_type_arg<float
// const>" gives "float const" (and "ns::Bar<int, 3> >" gives "ns::Bar<int, 3>").
inline std::string name_argument(const char* mangled) {
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(mangled, nullptr, nullptr, &status),
                                                         std::free);
  if (status == -1) throw std::bad_alloc();
  const std::string_view text = demangled ? std::string_view(demangled.get()) : std::string_view();
  const std::size_t open = text.find('<');
  if (status != 0 || open == std::string_view::npos || text.back() != '>' ||
      text.substr(0, open).find("kiln::detail::name_") != 0) {
    throw kiln::Error(KILN_STATUS_INTERNAL_ERROR,
                      "kiln::name_of: cannot demangle " + std::string(mangled) + " (status " + std::to_string(status) +
                          ")");
  }
  std::string_view argument = text.substr(open + 1, text.size() - open - 2);
  if (!argument.empty() && argument.back() == ' ') argument.remove_suffix(1);  // the demangler's "> >"
  return std::string(argument);
}

inline std::string name_from(std::string_view kernel, std::initializer_list<const char*> mangled_holders) {
  std::string out(kernel);
  out += '<';
  bool first = true;
  for (const char* mangled : mangled_holders) {
    if (!first) out += ", ";
    first = false;
    out += name_argument(mangled);
  }
  // As the demangler writes it: never two '>' in a row.
  if (out.back() == '>') out += ' ';
  out += '>';
  return out;
}
#endif

}  // namespace detail

// The name of kernel template `kernel` ("block_sum", "ns::reduce") instantiated with Args: each a
// type, or kiln::value<V> for a value. Throws std::bad_alloc; kiln::Error (INTERNAL_ERROR) only if
// the C++ runtime cannot demangle a typeid name, which would be a bug.
template <class... Args>
std::string name_of(std::string_view kernel) {
#ifdef KILN_NAME_OF_AVAILABLE
  static_assert(sizeof...(Args) > 0, "kiln::name_of: give the kernel's template arguments");
  return detail::name_from(kernel, {typeid(typename detail::name_holder<Args>::type).name()...});
#else
  static_assert(detail::k_dependent_false<Args...>,
                "kiln::name_of needs RTTI (typeid) and the Itanium C++ ABI (GCC or Clang): compile without "
                "-fno-rtti, or write the name as kiln inspect lists it");
  return std::string(kernel);
#endif
}

// The same for template arguments that are all values: name_of<256u, 'J'>("k").
template <auto... Values>
std::string name_of(std::string_view kernel) {
  return name_of<value<Values>...>(kernel);
}

}  // namespace kiln

#endif  // KILN_NAME_OF_HPP
