// expand_cross_product and the identifier scan behind it, called directly.
#include "manifest/cross_product.hpp"
#include "manifest/manifest_reader.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace kiln::manifest {
namespace {

using Strings = std::vector<std::string>;
using Args = std::vector<std::pair<std::string, std::vector<std::string>>>;

TEST(ManifestCrossProduct, ExampleFromTheHeader) {
  EXPECT_EQ(expand_cross_product("block_sum<T, B>", Args{{"T", {"float", "double"}}, {"B", {"128", "256"}}}),
            (Strings{"block_sum<float, 128>", "block_sum<float, 256>", "block_sum<double, 128>",
                     "block_sum<double, 256>"}));
}

TEST(ManifestCrossProduct, FirstArgumentVariesSlowest) {
  // Argument order, not pattern order, decides: the reader sorts arguments by the pattern first.
  EXPECT_EQ(expand_cross_product("f<A, B, C>", Args{{"C", {"1", "2"}}, {"A", {"a"}}, {"B", {"x", "y"}}}),
            (Strings{"f<a, x, 1>", "f<a, y, 1>", "f<a, x, 2>", "f<a, y, 2>"}));
}

TEST(ManifestCrossProduct, ReplacesEveryOccurrence) {
  EXPECT_EQ(expand_cross_product("f<T, g<T>>", Args{{"T", {"int"}}}), (Strings{"f<int, g<int>>"}));
}

TEST(ManifestCrossProduct, WholeIdentifierTokensOnly) {
  EXPECT_EQ(expand_cross_product("f<T, Tile, T_, _T, xT, T2>", Args{{"T", {"int"}}}),
            (Strings{"f<int, Tile, T_, _T, xT, T2>"}));
}

TEST(ManifestCrossProduct, LettersInsideNumbersAreNotIdentifiers) {
  EXPECT_EQ(expand_cross_product("f<0xB, 1.5e2B, 2u, B, u>", Args{{"B", {"7"}}, {"u", {"x"}}}),
            (Strings{"f<0xB, 1.5e2B, 2u, 7, x>"}));
}

TEST(ManifestCrossProduct, ValuesAreNotSubstitutedAgain) {
  EXPECT_EQ(expand_cross_product("f<A, B>", Args{{"A", {"B"}}, {"B", {"A"}}}), (Strings{"f<B, A>"}));
}

TEST(ManifestCrossProduct, NoArgumentsGiveThePattern) {
  EXPECT_EQ(expand_cross_product("f<int>", Args{}), (Strings{"f<int>"}));
}

TEST(ManifestCrossProduct, AnEmptyArgumentGivesNothing) {
  EXPECT_TRUE(expand_cross_product("f<A, B>", Args{{"A", {"1"}}, {"B", {}}}).empty());
}

TEST(ManifestCrossProduct, IdentifiersInFirstAppearanceOrder) {
  EXPECT_EQ(detail::identifiers_in("ns::k<T, B, T, 0x1F, 2u, Tile>"), (Strings{"ns", "k", "T", "B", "Tile"}));
}

}  // namespace
}  // namespace kiln::manifest
