// The names kiln harvest takes from a record (harvest/name_expression.hpp): a kernel's name
// expression as a program asks for one, and nothing that could carry code into the unit a build
// pastes it into.
#include "harvest/name_expression.hpp"

#include <gtest/gtest.h>

namespace kiln::harvest {
namespace {

TEST(NameExpression, NamesAProgramAsksForAreTaken) {
  for (const char* name : {"scale", "ops::scale<float>", "::ops::scale<double, 512>", "block_sum<float,256>",
                           "run<Mode::fast>", "f<ns::Pair<int, float>>", "f<(N > 2), 3>", "f<(1 << 3)>",
                           "f<unsigned int, -1>", "f<float*, const int&>", "f<sizeof(ns::T<int>)>",
                           "f<decltype(x[0])>", "f< int >", "f<'a'>", "f<(N/2)>", "f<1.5f>", "a1::_b2<true>"})
    EXPECT_TRUE(is_name_expression(name)) << name;
}

TEST(NameExpression, TextThatCouldCarryCodeIsRefused) {
  for (const char* name : {
           "f<int>, 0}; __global__ void evil(float* x) { x[0] = 1; } static void* z[] = {0",
           "f<int>); system(\"rm\"",                // a call after a closing parenthesis
           "f<int>) , (void*)&g<int>",              // a second address at the top level
           "f<int>, g<int>",                         // two names
           "f<int><float>",                          // a list that closes before the end
           "f<[]{ return 1; }()>",                   // a lambda
           "f<_Pragma(\"message x\") int>",          // a string, and with it _Pragma
           "f<int>\n#include </etc/passwd>",         // a directive
           "f<int%>",                                // digraphs: <% is {, %> is }, %: is #
           "f<int ?" "?> ",                          // a trigraph
           "f<int/*>", "f<int>//", "f<*/int>",       // comments
           "f<int\\", "f<\x1b[31m>", "f<\xc3\xa9>",  // a continuation, a control, non-ASCII
           "f<int", "f<int>>", "f<(int>", "f<int)>", // unbalanced
           "", "<int>", "3f<int>", "ops::<int>", "ops:::f", "f g<int>", "f<int> x"})
    EXPECT_FALSE(is_name_expression(name)) << name;
}

}  // namespace
}  // namespace kiln::harvest
