// Packages whose checksums are right but whose images or tables are hostile: images the driver
// cannot read are refused before it sees them, a failed image stays failed, a zstd bomb is refused
// at open, and a lookup's nearest-names search costs a bounded amount however many names there are.
#include "runtime_fixture.hpp"
#include "test_process.hpp"

#include "package_fixture.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace kiln::testing {
namespace {

// One unit, target sm_90, kernel k, whose image is `image` (stored raw).
Bytes package_with_image(Bytes image, const char* target = "sm_90") {
  format::PackageContents contents;
  contents.targets = {target};
  format::PackageUnit unit{"ops.cu", {{target, std::move(image), 0}}};
  contents.units.push_back(std::move(unit));
  format::PackageKernel kernel;
  kernel.lowered_name = kernel.canonical_name = "k";
  kernel.unit_source = "ops.cu";
  contents.kernels.push_back(kernel);
  format::WriteOptions options;
  options.compress = false;
  return format::write_package(contents, options).value();
}

long max_rss_kib() { return kiln::test::peak_memory_kib(); }

TEST_F(RuntimeTest, MalformedImagesNeverReachTheDriver) {
  Bytes far = format::testing::cubin_of("img", 90);
  const std::uint64_t away = std::uint64_t{1} << 63;
  std::memcpy(far.data() + 40, &away, sizeof away);
  const std::vector<std::pair<Bytes, std::string>> cases = {
      {{}, "is too small for an ELF header (0 bytes)"},
      {format::testing::bytes_of(std::string(200, 'c')), "is not an ELF file"},
      {far, "has its section header table outside its 136 bytes"},
      {format::testing::cubin_of("img", 80), "is a cubin for sm_80, not sm_90"},
  };
  for (const auto& [image, why] : cases) {
    kiln::Package package = open(package_with_image(image));
    const std::string message = error_of([&] { package.kernel("k"); }, KILN_STATUS_IMAGE_CORRUPT);
    EXPECT_EQ(message, "app.kiln: image ops.cu [sm_90] " + why);
    error_of([&] { package.image_for_arch("k", 90); }, KILN_STATUS_IMAGE_CORRUPT);
  }
  EXPECT_TRUE(fake->loads().empty());
}

TEST_F(RuntimeTest, AFailedImageStaysFailed) {
  Bytes bytes = single_kernel_package({"sm_90"});
  const Bytes pristine = bytes;
  damage_image(bytes, "ops.cu", "sm_90");
  kiln::Package package = kiln::Package::open_memory(bytes.data(), bytes.size(), KILN_OPEN_BORROW);
  error_of([&] { package.image_for_arch("k", 90); }, KILN_STATUS_IMAGE_CORRUPT);
  bytes = pristine;  // same size: the borrowed buffer now holds the good image
  error_of([&] { package.image_for_arch("k", 90); }, KILN_STATUS_IMAGE_CORRUPT);  // not decoded again
}

TEST_F(RuntimeTest, AZstdBombIsRefusedAtOpenInBoundedTimeAndMemory) {
  // A 2 GiB image of zeros: zstd stores it in a few kilobytes.
  format::PackageContents contents;
  contents.targets = {"sm_90"};
  format::PackageUnit unit{"ops.cu", {{"sm_90", format::testing::cubin_of("img", 90), 0}}};
  contents.units.push_back(std::move(unit));
  format::PackageKernel kernel;
  kernel.lowered_name = kernel.canonical_name = "k";
  kernel.unit_source = "ops.cu";
  contents.kernels.push_back(kernel);
  Bytes file = format::testing::write_ok(contents);
  // Declare the bomb's size in the index, as a hostile file would; the reseal keeps checksums right.
  auto image = format::testing::get_record<format::ImageRecord>(file, format::SectionKind::images, 0);
  image.raw_size = std::uint64_t{1} << 31;
  image.encoding = static_cast<std::uint32_t>(format::ImageEncoding::zstd);
  format::testing::set_record(file, format::SectionKind::images, 0, image);
  format::testing::reseal(file);
  const long rss_before = max_rss_kib();
  const auto start = std::chrono::steady_clock::now();
  kiln_package* package = nullptr;
  EXPECT_EQ(kiln_package_open_memory(file.data(), file.size(), KILN_OPEN_BORROW, "app.kiln", &package),
            KILN_STATUS_CORRUPT);
  EXPECT_NE(std::string(kiln_last_error()).find("exceeds the limit"), std::string::npos) << kiln_last_error();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 3.0);
  EXPECT_LT(max_rss_kib() - rss_before, 64 * 1024);  // KiB: far below the 2 GiB it claims
}

TEST_F(RuntimeTest, NearestNamesCostIsBoundedOnALargeTable) {
  format::PackageContents contents;
  contents.targets = {"sm_90"};
  contents.units.push_back({"ops.cu", {{"sm_90", format::testing::cubin_of("img:ops.cu:sm_90", 90), 0}}});
  const std::string stem(240, 'n');
  // 100,000 names of ~246 characters: comparing each (the old search) is ~6e9 steps, tens of seconds
  // (minutes under a sanitizer); the bounded search compares 1024 neighbours, well under a second (a
  // few under a sanitizer). The bound is loose so that a loaded machine cannot fail it, and still far
  // below the unbounded search.
  for (int i = 0; i < 100000; ++i) {
    format::PackageKernel kernel;
    kernel.lowered_name = kernel.canonical_name = stem + std::to_string(100000 + i);
    kernel.unit_source = "ops.cu";
    contents.kernels.push_back(kernel);
  }
  format::WriteOptions options;
  options.compress = false;
  const Bytes file = format::write_package(contents, options).value();
  kiln::Package package = open(file);
  const auto start = std::chrono::steady_clock::now();
  error_of([&] { package.kernel(stem + "x"); }, KILN_STATUS_KERNEL_NOT_FOUND);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 20.0);
}

}  // namespace
}  // namespace kiln::testing
