// Variant kernels through the runtime: a variant of ops.cu ("f64") holds the same symbol
// as ops.cu itself. Each kernel is found by its own names, looked up by its symbol in its own unit's
// image, and named by that symbol in the C ABI.
#include "runtime_fixture.hpp"

namespace kiln::testing {
namespace {

using Lookups = std::vector<std::pair<std::string, std::string>>;

Bytes variant_package() {
  PackageSpec spec;
  spec.units = {{"ops.cu", {"sm_90", "compute_80"}}, {"f64", {"sm_90", "compute_80"}, {"ops.cu"}, true}};
  spec.kernels = {
      KernelSpec("scale<double>", "ops.cu", {8, 8}).with_lowered("_Z5scaleIdEvPT_S0_"),
      KernelSpec("f64/scale<double>", "f64", {8, 8}).with_lowered("f64/_Z5scaleIdEvPT_S0_").as_variant(),
  };
  return build_package(spec);
}

TEST_F(RuntimeTest, AVariantKernelIsLookedUpInItsUnitsImageByItsSymbol) {
  kiln::Package package = open(variant_package());
  double* data = nullptr;
  package.kernel("f64/scale<double>").launch(1, 32, 0, nullptr, data, data);
  package.kernel("scale<double>").launch(1, 32, 0, nullptr, data, data);
  EXPECT_EQ(fake->kernel_lookups(), (Lookups{{image_text("f64", "sm_90"), "_Z5scaleIdEvPT_S0_"},
                                             {image_text("ops.cu", "sm_90"), "_Z5scaleIdEvPT_S0_"}}));
  ASSERT_EQ(fake->launches().size(), 2u);
  EXPECT_EQ(fake->launches()[0].image, image_text("f64", "sm_90"));
  EXPECT_EQ(fake->launches()[0].kernel, "_Z5scaleIdEvPT_S0_");
  EXPECT_EQ(fake->launches()[1].image, image_text("ops.cu", "sm_90"));
}

TEST_F(RuntimeTest, TheCAbiNamesAVariantKernelBySymbolAndFindsItByVariantName) {
  kiln::Package package = open(variant_package());
  std::size_t index = 99;
  ASSERT_EQ(kiln_package_find_kernel(package.get(), "f64/scale<double>", &index), KILN_STATUS_SUCCESS);
  EXPECT_STREQ(kiln_package_kernel_lowered_name(package.get(), index), "_Z5scaleIdEvPT_S0_");
  EXPECT_STREQ(kiln_package_kernel_name(package.get(), index), "f64/scale<double>");
  std::size_t plain = 99;
  ASSERT_EQ(kiln_package_find_kernel(package.get(), "scale<double>", &plain), KILN_STATUS_SUCCESS);
  EXPECT_NE(plain, index);
  EXPECT_STREQ(kiln_package_kernel_lowered_name(package.get(), plain), "_Z5scaleIdEvPT_S0_");
  // The image chosen for it, without a driver call, names the symbol too.
  kiln_image image{};
  image.struct_size = sizeof image;
  ASSERT_EQ(kiln_package_select_image_for_arch(package.get(), "f64/scale<double>", 90, 0, &image), KILN_STATUS_SUCCESS);
  EXPECT_STREQ(image.lowered_name, "_Z5scaleIdEvPT_S0_");
  EXPECT_STREQ(image.kernel_name, "f64/scale<double>");
  EXPECT_STREQ(image.target, "sm_90");
  EXPECT_EQ(image_key(image.data), image_text("f64", "sm_90"));
}

}  // namespace
}  // namespace kiln::testing
