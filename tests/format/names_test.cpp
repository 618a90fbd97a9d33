#include "format/names.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

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
// The rule byte by byte, as the normalizer stated it before it read eight bytes at a time.
std::string normalized_byte_by_byte(std::string_view name) {
  const auto space = [](char c) { return std::string_view(" \t\n\r\f\v").find(c) != std::string_view::npos; };
  const auto word = [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  };
  std::string out;
  bool after_space = false;
  for (const char c : name) {
    if (space(c)) {
      after_space = true;
      continue;
    }
    if (after_space && !out.empty() && word(out.back()) && word(c)) out += ' ';
    after_space = false;
    out += c;
  }
  return out;
}

// Names of every length up to 40 over bytes that stop the word-at-a-time scan (whitespace, other
// bytes below 0x21, a NUL), bytes just above it ('!') and above 0x7f, and word characters, each
// also behind a normalized prefix: the same key as the rule byte by byte, and unspaced_prefix up
// to the first whitespace byte.
TEST(NormalizeName, ReadingEightBytesAtATimeGivesTheKeyOfTheRuleByteByByte) {
  const std::string alphabet("ab_9< ,\t\n\v\x01\x1f!\x80\xff\xc3\xa9 :\0", 20);
  std::mt19937 random(16);
  for (int round = 0; round < 20000; ++round) {
    std::string name(random() % 41, ' ');
    for (char& c : name) c = alphabet[random() % alphabet.size()];
    if (round % 3 == 0) name.insert(0, std::string(random() % 12, 'k'));   // long unspaced prefixes
    const std::string expected = normalized_byte_by_byte(name);
    EXPECT_EQ(normalize_name(name), expected) << ::testing::PrintToString(name);
    std::size_t first_space = 0;
    while (first_space < name.size() && std::string_view(" \t\n\r\f\v").find(name[first_space]) == std::string_view::npos) ++first_space;
    ASSERT_EQ(unspaced_prefix(name), first_space) << ::testing::PrintToString(name);
    std::vector<char> out(name.size() + 1, '#');
    std::copy_n(name.data(), first_space, out.data());
    EXPECT_EQ(normalize_name_after(name, first_space, out.data()), expected) << ::testing::PrintToString(name);
    EXPECT_EQ(out.back(), '#') << "wrote past the name's length";
  }
}

TEST(Names, IsNormalizedExactlyWhenNormalizingChangesNothing) {
  for (const char* name : {"", "k", "block_sum<float,256>", "block_sum< float, 256 >", "unsigned int", "unsigned  int",
                           "unsigned\tint", " k", "k ", "a< b", "a <b", "ops::scale<unsigned long long,4>",
                           "k<(unsigned)256>", "k<'J'>", "f64/_Z5scaleIdEvPT_S0_i", "a b c", "a  b", "a\nb", "<unnamed>::k",
                           "(anonymous namespace)::b::k", "x< y>", "x <y"}) {
    EXPECT_EQ(is_normalized(name), normalize_name(name) == name) << "'" << name << "'";
  }
}

}  // namespace kiln::format
