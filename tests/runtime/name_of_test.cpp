// kiln::name_of against the real thing: for each case, a function template instantiated here (on the
// host, as a kernel template is on the device) has its symbol found with dladdr, demangled with
// abi::__cxa_demangle and stripped of return type and parameters as the generator strips a kernel's
// lowered name (generator/src/package/kernel_names.cpp). That is the canonical name a package records,
// and name_of must give it exactly (not only up to whitespace).
#include "kiln/kiln.hpp"

#include <gtest/gtest.h>

#include <cxxabi.h>
#include <dlfcn.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

// The stand-ins for kernels and the types they take, all of default visibility: the project builds
// with -fvisibility=hidden, dladdr sees only exported symbols (the binary links with -rdynamic), and
// an instantiation is no more visible than its arguments (classes and enums too).
#pragma GCC visibility push(default)
#define KILN_PROBE __attribute__((noinline))

namespace ns {
enum class Color : short { red = -2, green = 2 };
enum Mode { slow, fast };
struct Foo {};
template <class T, int N = 3>
struct Bar {};
namespace inner {
struct Baz {};
}  // namespace inner
}  // namespace ns
enum Plain { zero, one };
enum class Wide : unsigned long long { big = 18446744073709551615ull };
template <class T>
struct Outer {};

template <class... T>
KILN_PROBE void type_kernel() {}
// Value parameters typed as kernels declare them: not `auto`, which Clang 17+ mangles with the
// parameter's declaration (TnDa) in a function template's name.
template <int... V>
KILN_PROBE void int_kernel() {}
template <unsigned V>
KILN_PROBE void unsigned_kernel() {}
template <char V>
KILN_PROBE void char_kernel() {}
template <signed char V, unsigned char W>
KILN_PROBE void byte_kernel() {}
template <short V, unsigned short W>
KILN_PROBE void short_kernel() {}
template <long A, long long B, unsigned long C, unsigned long long D>
KILN_PROBE void long_kernel() {}
template <bool A, bool B>
KILN_PROBE void bool_kernel() {}
template <wchar_t A, char16_t B, char32_t C>
KILN_PROBE void wide_char_kernel() {}
template <ns::Color V>
KILN_PROBE void color_kernel() {}
template <ns::Mode V>
KILN_PROBE void mode_kernel() {}
template <Plain V>
KILN_PROBE void plain_kernel() {}
template <Wide V>
KILN_PROBE void wide_kernel() {}
template <class T, int N>
KILN_PROBE void block_sum() {}
namespace red {
template <class T, unsigned N, char C>
KILN_PROBE void mixed() {}
}  // namespace red
#pragma GCC visibility pop

namespace kiln::testing {
namespace {

// strip_signature from the generator: drops "void " and the trailing parameter list.
std::string strip_signature(std::string_view s) {
  if (s.substr(0, 5) == "void ") s.remove_prefix(5);
  if (!s.empty() && s.back() == ')') {
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

// The canonical name of the function at `address`, as a package would record it.
std::string canonical_name(void (*function)()) {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(function), &info) == 0 || info.dli_sname == nullptr) {
    ADD_FAILURE() << "dladdr found no symbol (is the test linked with -rdynamic?)";
    return "";
  }
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(info.dli_sname, nullptr, nullptr, &status),
                                                         std::free);
  if (status != 0) {
    ADD_FAILURE() << info.dli_sname << " does not demangle";
    return "";
  }
  return strip_signature(demangled.get());
}

// name_of's spelling is the demangled instantiation's, and reads as `expected` (which documents it).
void expect_name(const std::string& expected, const std::string& spelled, void (*function)()) {
  EXPECT_EQ(spelled, canonical_name(function));
  EXPECT_EQ(spelled, expected);
}

TEST(NameOf, FundamentalTypesAndTheirCvAndPointerForms) {
  expect_name("type_kernel<float>", name_of<float>("type_kernel"), &type_kernel<float>);
  expect_name("type_kernel<float const volatile>", name_of<const volatile float>("type_kernel"),
              &type_kernel<const volatile float>);
  expect_name("type_kernel<int volatile>", name_of<volatile int>("type_kernel"), &type_kernel<volatile int>);
  expect_name("type_kernel<float const*>", name_of<const float*>("type_kernel"), &type_kernel<const float*>);
  expect_name("type_kernel<float* const>", name_of<float* const>("type_kernel"), &type_kernel<float* const>);
  expect_name("type_kernel<float const* const volatile>", name_of<const float* const volatile>("type_kernel"),
              &type_kernel<const float* const volatile>);
  expect_name("type_kernel<double**>", name_of<double**>("type_kernel"), &type_kernel<double**>);
  expect_name("type_kernel<char, signed char, unsigned char>",
              (name_of<char, signed char, unsigned char>("type_kernel")),
              &type_kernel<char, signed char, unsigned char>);
  expect_name("type_kernel<short, unsigned short, unsigned int, long, unsigned long long>",
              (name_of<short, unsigned short, unsigned, long, unsigned long long>("type_kernel")),
              &type_kernel<short, unsigned short, unsigned, long, unsigned long long>);
  expect_name("type_kernel<bool, wchar_t, char16_t, char32_t, long double, __int128>",
              (name_of<bool, wchar_t, char16_t, char32_t, long double, __int128_t>("type_kernel")),
              &type_kernel<bool, wchar_t, char16_t, char32_t, long double, __int128_t>);
}

TEST(NameOf, ReferencesAndArraysInTheDemanglersOrder) {
  expect_name("type_kernel<float const&>", name_of<const float&>("type_kernel"), &type_kernel<const float&>);
  expect_name("type_kernel<float&&>", name_of<float&&>("type_kernel"), &type_kernel<float&&>);
  expect_name("type_kernel<float [4]>", name_of<float[4]>("type_kernel"), &type_kernel<float[4]>);
  expect_name("type_kernel<float const [2][3]>", name_of<const float[2][3]>("type_kernel"),
              &type_kernel<const float[2][3]>);
  expect_name("type_kernel<float (&) [4]>", name_of<float (&)[4]>("type_kernel"), &type_kernel<float (&)[4]>);
  expect_name("type_kernel<float (* const) [4]>", name_of<float (*const)[4]>("type_kernel"),
              &type_kernel<float (*const)[4]>);
  expect_name("type_kernel<void (*)(int)>", name_of<void (*)(int)>("type_kernel"), &type_kernel<void (*)(int)>);
}

TEST(NameOf, ClassesInNamespacesTemplatesAndNesting) {
  expect_name("type_kernel<ns::Foo>", name_of<ns::Foo>("type_kernel"), &type_kernel<ns::Foo>);
  expect_name("type_kernel<ns::inner::Baz const*>", name_of<const ns::inner::Baz*>("type_kernel"),
              &type_kernel<const ns::inner::Baz*>);
  // The default template argument is spelled out, as the demangler does.
  expect_name("type_kernel<ns::Bar<int, 3> >", name_of<ns::Bar<int>>("type_kernel"), &type_kernel<ns::Bar<int>>);
  expect_name("type_kernel<Outer<Outer<ns::Bar<float, -1> > > >", name_of<Outer<Outer<ns::Bar<float, -1>>>>("type_kernel"),
              &type_kernel<Outer<Outer<ns::Bar<float, -1>>>>);
  // A repeated type is a substitution (S_) in the mangled name; the demangler writes it out again.
  expect_name("type_kernel<ns::Foo, ns::Foo*, Outer<ns::Foo> >", (name_of<ns::Foo, ns::Foo*, Outer<ns::Foo>>("type_kernel")),
              &type_kernel<ns::Foo, ns::Foo*, Outer<ns::Foo>>);
  expect_name("type_kernel<std::pair<int, float> >", name_of<std::pair<int, float>>("type_kernel"),
              &type_kernel<std::pair<int, float>>);
  expect_name("type_kernel<ns::Color, Plain>", (name_of<ns::Color, Plain>("type_kernel")),
              &type_kernel<ns::Color, Plain>);
}

TEST(NameOf, IntegerCharacterAndBoolValues) {
  expect_name("unsigned_kernel<256u>", name_of<256u>("unsigned_kernel"), &unsigned_kernel<256u>);
  expect_name("int_kernel<-1>", name_of<-1>("int_kernel"), &int_kernel<-1>);
  expect_name("int_kernel<-2147483648, 7>", name_of<-2147483647 - 1, 7>("int_kernel"), &int_kernel<-2147483647 - 1, 7>);
  expect_name("char_kernel<(char)74>", name_of<'J'>("char_kernel"), &char_kernel<'J'>);
  expect_name("char_kernel<(char)-1>", name_of<static_cast<char>(-1)>("char_kernel"), &char_kernel<static_cast<char>(-1)>);
  expect_name("byte_kernel<(signed char)-74, (unsigned char)3>",
              name_of<static_cast<signed char>(-74), static_cast<unsigned char>(3)>("byte_kernel"),
              &byte_kernel<-74, 3>);
  expect_name("short_kernel<(short)-3, (unsigned short)3>",
              name_of<static_cast<short>(-3), static_cast<unsigned short>(3)>("short_kernel"), &short_kernel<-3, 3>);
  expect_name("long_kernel<5l, -5ll, 5ul, 18446744073709551615ull>",
              name_of<5l, -5ll, 5ul, 18446744073709551615ull>("long_kernel"),
              &long_kernel<5l, -5ll, 5ul, 18446744073709551615ull>);
  expect_name("bool_kernel<true, false>", name_of<true, false>("bool_kernel"), &bool_kernel<true, false>);
  expect_name("wide_char_kernel<(wchar_t)74, (char16_t)74, (char32_t)74>",
              name_of<L'J', u'J', U'J'>("wide_char_kernel"), &wide_char_kernel<L'J', u'J', U'J'>);
}

TEST(NameOf, EnumValuesAreCastsOfTheUnderlyingValue) {
  expect_name("color_kernel<(ns::Color)-2>", name_of<ns::Color::red>("color_kernel"), &color_kernel<ns::Color::red>);
  expect_name("mode_kernel<(ns::Mode)1>", name_of<ns::fast>("mode_kernel"), &mode_kernel<ns::fast>);
  expect_name("plain_kernel<(Plain)0>", name_of<zero>("plain_kernel"), &plain_kernel<zero>);
  expect_name("wide_kernel<(Wide)18446744073709551615>", name_of<Wide::big>("wide_kernel"), &wide_kernel<Wide::big>);
}

TEST(NameOf, TypesAndValuesMixWithKilnValue) {
  expect_name("block_sum<float, 256>", (name_of<float, kiln::value<256>>("block_sum")), &block_sum<float, 256>);
  expect_name("red::mixed<ns::Bar<double, 3>, 128u, (char)74>",
              (name_of<ns::Bar<double>, kiln::value<128u>, kiln::value<'J'>>("red::mixed")),
              &red::mixed<ns::Bar<double>, 128u, 'J'>);
}

// A value is spelled with its type, so it must be given in the type of the kernel's parameter.
TEST(NameOf, TheWrongValueTypeGivesAnotherName) {
  // template <int N> with 256u is another instantiation than with 256: name_of says so too.
  EXPECT_NE(name_of<256u>("int_kernel"), canonical_name(&int_kernel<256>));
}

}  // namespace
}  // namespace kiln::testing
