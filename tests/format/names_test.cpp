#include "format/names.hpp"

#include <gtest/gtest.h>

namespace kiln::format {
namespace {

TEST(NormalizeName, SpellingsOfOneNameGiveOneKey) {
  EXPECT_EQ(normalize_name("block_sum<float,256>"), "block_sum<float,256>");
  EXPECT_EQ(normalize_name("block_sum< float, 256 >"), "block_sum<float,256>");
  EXPECT_EQ(normalize_name("block_sum <float , 256>"), "block_sum<float,256>");
  EXPECT_EQ(normalize_name("  red :: block_sum<float,\n\t256>  "), "red::block_sum<float,256>");
}

TEST(NormalizeName, KeepsOneSpaceBetweenWords) {
  EXPECT_EQ(normalize_name("k<unsigned int>"), "k<unsigned int>");
  EXPECT_EQ(normalize_name("k<unsigned \t\n int>"), "k<unsigned int>");
  EXPECT_EQ(normalize_name("k<long long, 4>"), "k<long long,4>");
  EXPECT_EQ(normalize_name("k<const char *>"), "k<const char*>");
  EXPECT_EQ(normalize_name("k<const  _T2 , 0x10>"), "k<const _T2,0x10>");
  EXPECT_EQ(normalize_name("k<float> (int)"), "k<float>(int)");
}

TEST(NormalizeName, ClosingAnglesJoin) {
  EXPECT_EQ(normalize_name("foo<bar<int> >"), "foo<bar<int>>");
  EXPECT_EQ(normalize_name("foo<bar<baz<int> > >"), "foo<bar<baz<int>>>");
}

TEST(NormalizeName, EdgeCases) {
  EXPECT_EQ(normalize_name(""), "");
  EXPECT_EQ(normalize_name(" \t\r\n\f\v"), "");
  EXPECT_EQ(normalize_name("saxpy"), "saxpy");
  EXPECT_EQ(normalize_name("_Z5scaleIfEvPT_S0_i"), "_Z5scaleIfEvPT_S0_i");
  // Only ASCII whitespace is removed, and only ASCII letters, digits and '_' count as words.
  EXPECT_EQ(normalize_name("k<\xc3\xa9 int>"), "k<\xc3\xa9int>");
  EXPECT_EQ(normalize_name("a\xc2\xa0"
                           "b"),
            "a\xc2\xa0"
            "b");  // a no-break space is not whitespace
}

TEST(NormalizeName, IsIdempotent) {
  for (const char* name : {"k<unsigned int, 3>", "foo<bar<int> >", " a b  c ", "x :: y < z >"}) {
    const std::string once = normalize_name(name);
    EXPECT_EQ(normalize_name(once), once) << name;
  }
}

}  // namespace
// The fast path must agree with normalize_name on every spelling, or a lookup would miss.
TEST(Names, IsNormalizedExactlyWhenNormalizingChangesNothing) {
  for (const char* name : {"", "k", "block_sum<float,256>", "block_sum< float, 256 >", "unsigned int", "unsigned  int",
                           "unsigned\tint", " k", "k ", "a< b", "a <b", "ops::scale<unsigned long long,4>",
                           "k<(unsigned)256>", "k<'J'>", "f64/_Z5scaleIdEvPT_S0_i", "a b c", "a  b", "a\nb", "<unnamed>::k",
                           "(anonymous namespace)::b::k", "x< y>", "x <y"}) {
    EXPECT_EQ(is_normalized(name), normalize_name(name) == name) << "'" << name << "'";
  }
}

}  // namespace kiln::format
