// The string rules of manifest/checks.hpp and manifest/paths.hpp, called directly.
#include "manifest/checks.hpp"
#include "manifest/paths.hpp"

#include <gtest/gtest.h>

#include <array>
#include <string_view>

namespace kiln::manifest::detail {
namespace {

TEST(ManifestChecks, EditDistanceCountsASwapAsOneEdit) {
  EXPECT_EQ(edit_distance("tragets", "targets"), 1u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("same", "same"), 0u);
}

TEST(ManifestChecks, NearestSuggestsOnlyCloseKeys) {
  constexpr std::array<std::string_view, 4> keys = {"name", "targets", "compress", "defines"};
  EXPECT_EQ(nearest("tragets", keys), "targets");
  EXPECT_EQ(nearest("comprss", keys), "compress");
  EXPECT_EQ(nearest("nme", keys), "name");
  EXPECT_EQ(nearest("nmae", keys), "name");
  EXPECT_FALSE(nearest("nm", keys));  // two edits from a four-letter key
  EXPECT_FALSE(nearest("colour", keys));
  EXPECT_FALSE(nearest("name", keys));  // not misspelt
  constexpr std::array<std::string_view, 1> one_letter = {"T"};
  EXPECT_FALSE(nearest("B", one_letter));  // every one-letter name is one edit from another
}

TEST(ManifestChecks, TargetSuggestions) {
  EXPECT_EQ(did_you_mean_target("sm90"), " (did you mean 'sm_90'?)");
  EXPECT_EQ(did_you_mean_target("9.0a"), " (did you mean 'sm_90a'?)");
  EXPECT_EQ(did_you_mean_target("sm_90A"), " (did you mean 'sm_90a'?)");
  EXPECT_EQ(did_you_mean_target("SM_100F"), " (did you mean 'sm_100f'?)");
  EXPECT_EQ(did_you_mean_target("sm_9.0"), " (did you mean 'sm_90'?)");
  EXPECT_EQ(did_you_mean_target("compute-90"), " (did you mean 'compute_90'?)");
  EXPECT_EQ(did_you_mean_target("banana"), "");
}

TEST(ManifestChecks, PackageNames) {
  EXPECT_TRUE(check_package_name("saxpy").ok());
  EXPECT_TRUE(check_package_name("my.pkg-2+x").ok());
  for (const std::string_view bad : {"", ".", "..", "a/b", "a:b", "a\\b", "a\nb"})
    EXPECT_FALSE(check_package_name(bad).ok()) << bad;
}

TEST(ManifestChecks, Defines) {
  EXPECT_TRUE(check_define("N").ok());
  EXPECT_TRUE(check_define("N=4").ok());
  EXPECT_TRUE(check_define("_n9=").ok());
  EXPECT_FALSE(check_define("9N").ok());
  EXPECT_FALSE(check_define("=4").ok());
  EXPECT_FALSE(check_define("F(x)=x").ok());
  EXPECT_FALSE(check_define("").ok());
}

TEST(ManifestChecks, CanonicalTarget) {
  EXPECT_EQ(canonical_target("sm_90a"), "sm_90a");
  EXPECT_EQ(canonical_target("compute_100f"), "compute_100f");
  EXPECT_FALSE(canonical_target("sm_90b"));
}

TEST(ManifestChecks, NormalizeRelative) {
  EXPECT_EQ(normalize_relative("a.cu"), "a.cu");
  EXPECT_EQ(normalize_relative("./a//b/../c/"), "a/c");
  EXPECT_EQ(normalize_relative("a/.."), ".");
  EXPECT_EQ(normalize_relative("./"), ".");
  EXPECT_EQ(normalize_relative("../x/./y"), "../x/y");
}

}  // namespace
}  // namespace kiln::manifest::detail
