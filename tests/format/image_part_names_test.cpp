// Image part names (docs/package-format.md, "Image parts"): written and read back; names that are
// not part names (a variant's, a source path, "#1", "#02", no number) are not taken for one.
#include "format/image_part_names.hpp"

#include <gtest/gtest.h>

namespace kiln::format {
namespace {

TEST(ImagePartNames, APartNameReadsBackAsItsUnitAndPart) {
  EXPECT_EQ(image_part_name("kernels/ops.cu", 3), "kernels/ops.cu#3");
  const std::optional<ImagePartName> read = parse_image_part_name(image_part_name("kernels/ops.cu", 3));
  ASSERT_TRUE(read);
  EXPECT_EQ(read->unit, "kernels/ops.cu");
  EXPECT_EQ(read->part, 3u);
  // The last '#' splits: a unit may hold one itself.
  const std::optional<ImagePartName> odd = parse_image_part_name("a#b.cu#12");
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->unit, "a#b.cu");
  EXPECT_EQ(odd->part, 12u);
}

TEST(ImagePartNames, OtherNamesAreNoParts) {
  for (const char* name : {"f64", "ops.cu", "ops.cu#", "#2", "ops.cu#1", "ops.cu#0", "ops.cu#02", "ops.cu#2a",
                           "ops.cu#-2", "ops.cu#1234567890"})
    EXPECT_FALSE(parse_image_part_name(name)) << name;
}

}  // namespace
}  // namespace kiln::format
