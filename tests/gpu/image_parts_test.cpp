// Image parts on the GPU (tests/fixtures/projects/parts: 11 instantiations and a plain kernel, 4
// kernels an image at most): every kernel loads from its part's image and computes what its source
// says; kernels of one part share an image, kernels of two parts do not, and no part's image is
// the whole unit's.
#include "gpu_support.hpp"

#include <gtest/gtest.h>

#include <string>

namespace kiln::gpu_test {
namespace {

int run(kiln::Package& package, const std::string& kernel) {
  DeviceBuffer<int> out(1);
  package.kernel(kernel).launch(1, 1, 0, nullptr, out.get());
  synchronize();
  return out.download()[0];
}

TEST(ImageParts, EveryKernelLoadsFromItsPartAndComputes) {
  kiln::Package package = open_package("parts.kiln");
  EXPECT_EQ(run(package, "plain"), -7);
  EXPECT_EQ(run(package, "tile<100>"), 1001);
  for (int n = 0; n < 10; ++n) EXPECT_EQ(run(package, "tile<" + std::to_string(n) + ">"), n * 10 + 1) << n;
}

TEST(ImageParts, KernelsOfOnePartShareAnImageAndPartsDoNot) {
  kiln::Package package = open_package("parts.kiln");
  const auto image_of = [&](const char* kernel) { return package.image(kernel); };
  // tile.cu: tile<100>, tile<0..2>, plain; tile.cu#2: tile<3..6>; tile.cu#3: tile<7..9>.
  EXPECT_EQ(image_of("tile<0>").data, image_of("plain").data);
  EXPECT_EQ(image_of("tile<3>").data, image_of("tile<6>").data);
  EXPECT_EQ(image_of("tile<7>").data, image_of("tile<9>").data);
  EXPECT_NE(image_of("tile<0>").data, image_of("tile<3>").data);
  EXPECT_NE(image_of("tile<3>").data, image_of("tile<7>").data);
  // Three kernels' image is smaller than five kernels' (the first part's, with plain).
  EXPECT_LT(image_of("tile<7>").size, image_of("tile<0>").size);
  EXPECT_EQ(image_of("tile<7>").target, image_of("tile<0>").target);
}

}  // namespace
}  // namespace kiln::gpu_test
