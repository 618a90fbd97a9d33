// The bytes kiln_package_select_image hands out: decoded once and kept until the package is
// destroyed, raw images in place, PTX NUL-terminated, damaged images refused, and many threads at once.
#include "runtime_fixture.hpp"

#include "format/package_reader.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <span>

namespace kiln::testing {
namespace {

using ::testing::HasSubstr;


// Units a.cu and b.cu for sm_80, sm_90 and compute_80, holding ka and kb.
Bytes two_unit_package(bool compressible) {
  PackageSpec spec;
  spec.units = {{"a.cu", {"sm_80", "sm_90", "compute_80"}}, {"b.cu", {"sm_80", "sm_90", "compute_80"}}};
  spec.kernels = {KernelSpec("ka", "a.cu"), KernelSpec("kb", "b.cu")};
  spec.compressible = compressible;
  return build_package(spec);
}

bool inside(const void* pointer, const Bytes& buffer) {
  const auto* p = static_cast<const std::byte*>(pointer);
  return p >= buffer.data() && p < buffer.data() + buffer.size();
}

bool aligned(const void* pointer) { return reinterpret_cast<std::uintptr_t>(pointer) % 8 == 0; }

// Whether `image` holds exactly the test image for `text` (and, if compressed, its padding).
void expect_image(const kiln::Image& image, const std::string& text, bool padded) {
  const Bytes expected = test_image(text, image.target, padded);
  ASSERT_EQ(image.size, expected.size());
  EXPECT_EQ(std::memcmp(image.data, expected.data(), expected.size()), 0);
}

// Overwrites every stored image in `package`: any later read of one fails its checksum.
void damage_every_stored_image(Bytes& package) {
  format::PackageReader reader;
  ASSERT_TRUE(reader.open(package));
  for (std::uint32_t i = 0; i < reader.image_count(); ++i) {
    const std::span<const std::byte> stored = reader.stored_image(i);
    std::fill_n(package.begin() + (stored.data() - package.data()), stored.size(), std::byte{0xff});
  }
}

TEST_F(RuntimeTest, CompressedImagesAreDecodedOnceAndShared) {
  Bytes bytes = two_unit_package(/*compressible=*/true);
  kiln::Package package = kiln::Package::open_memory(bytes.data(), bytes.size(), KILN_OPEN_BORROW);
  const kiln::Image image = package.image("ka");
  expect_image(image, image_text("a.cu", "sm_90"), true);
  EXPECT_FALSE(inside(image.data, bytes));  // decoded: not the stored bytes
  EXPECT_TRUE(aligned(image.data));
  damage_every_stored_image(bytes);  // what follows must not read them again
  EXPECT_EQ(package.image("ka").data, image.data);        // decoded once
  EXPECT_EQ(package.image_for_arch("ka", 90).data, image.data);
  package.kernel("ka");                                    // the driver gets the same decoded image
  EXPECT_EQ(fake->loads(), std::vector<std::string>{image_text("a.cu", "sm_90")});
  EXPECT_EQ(package.image("ka").data, image.data);
}

TEST_F(RuntimeTest, RawImagesAreHandedOutInPlace) {
  const Bytes bytes = two_unit_package(/*compressible=*/false);
  kiln::Package package = kiln::Package::open_memory(bytes.data(), bytes.size(), KILN_OPEN_BORROW);
  const kiln::Image image = package.image("kb");
  expect_image(image, image_text("b.cu", "sm_90"), false);
  EXPECT_TRUE(inside(image.data, bytes));
  EXPECT_TRUE(aligned(image.data));
}

TEST_F(RuntimeTest, RawImagesOfAMisalignedBufferAreCopiedAligned) {
  const Bytes bytes = two_unit_package(/*compressible=*/false);
  Bytes shifted(bytes.size() + 8);
  std::memcpy(shifted.data() + 1, bytes.data(), bytes.size());  // every image lands off by one
  kiln::Package package = kiln::Package::open_memory(shifted.data() + 1, bytes.size(), KILN_OPEN_BORROW);
  const kiln::Image image = package.image("kb");
  expect_image(image, image_text("b.cu", "sm_90"), false);
  EXPECT_FALSE(inside(image.data, shifted));
  EXPECT_TRUE(aligned(image.data));
}

TEST_F(RuntimeTest, PtxIsNulTerminatedAndItsSizeCountsTheNul) {
  for (bool compressible : {false, true}) {
    SCOPED_TRACE(compressible ? "compressed" : "raw");
    fake->devices = {FakeDevice{120}};  // no cubin fits: PTX
    kiln::Package package = open(two_unit_package(compressible));
    const kiln::Image image = package.image("ka");
    EXPECT_EQ(image.kind, kiln::Image::Kind::ptx);
    EXPECT_EQ(image.target, "compute_80");
    EXPECT_EQ(image.data[image.size - 1], std::byte{0});
    if (!compressible) {
      EXPECT_EQ(std::strlen(reinterpret_cast<const char*>(image.data)), image.size - 1);
    }
  }
}

TEST_F(RuntimeTest, PtxWithoutItsNulIsACorruptImage) {
  const std::string text = image_text("ops.cu", "compute_80");
  format::PackageContents contents;
  contents.targets = {"compute_80"};
  format::PackageUnit unit;
  unit.source = "ops.cu";
  unit.images.push_back({"compute_80", Bytes(reinterpret_cast<const std::byte*>(text.data()),
                                             reinterpret_cast<const std::byte*>(text.data() + text.size())), 90});
  contents.units.push_back(std::move(unit));
  format::PackageKernel kernel;
  kernel.lowered_name = kernel.canonical_name = "k";
  kernel.unit_source = "ops.cu";
  contents.kernels.push_back(kernel);
  const Result<Bytes> written = format::write_package(contents);
  ASSERT_TRUE(written.ok()) << written.error().message;

  kiln::Package package = open(*written);
  const std::string message = error_of([&] { package.image("k"); }, KILN_STATUS_IMAGE_CORRUPT);
  EXPECT_EQ(message, "app.kiln: image ops.cu [compute_80] is PTX without its terminating NUL byte");
  error_of([&] { package.image_for_arch("k", 90); }, KILN_STATUS_IMAGE_CORRUPT);
  EXPECT_EQ(error_of([&] { package.kernel("k"); }, KILN_STATUS_IMAGE_CORRUPT), message);  // never reaches the driver
  EXPECT_TRUE(fake->loads().empty());
}

TEST_F(RuntimeTest, OnlyTheChosenImageIsCheckedAndADamagedOneIsRefused) {
  Bytes bytes = single_kernel_package({"sm_80", "sm_90"});
  damage_image(bytes, "ops.cu", "sm_90");
  kiln::Package package = open(bytes);
  EXPECT_THAT(error_of([&] { package.image("k"); }, KILN_STATUS_IMAGE_CORRUPT), HasSubstr("ops.cu [sm_90]"));
  EXPECT_EQ(error_of([&] { package.image("k"); }, KILN_STATUS_IMAGE_CORRUPT),  // failures are not kept
            error_of([&] { package.image_for_arch("k", 90); }, KILN_STATUS_IMAGE_CORRUPT));
  expect_image(package.image_for_arch("k", 80), image_text("ops.cu", "sm_80"), false);
}

// Bytes and strings stay where they were, unchanged, through every other use of the package, and do
// not depend on the caller's buffer (KILN_OPEN_COPY).
TEST_F(RuntimeTest, ImagesLiveUntilThePackageIsDestroyed) {
  fake->devices = {FakeDevice{90}, FakeDevice{80}};
  kiln::Package compressed, raw;
  {
    Bytes scratch = two_unit_package(true);
    compressed = open(scratch);
    std::fill(scratch.begin(), scratch.end(), std::byte{0});
    scratch = two_unit_package(false);
    raw = open(scratch);
    std::fill(scratch.begin(), scratch.end(), std::byte{0});
  }
  const kiln::Image decoded = compressed.image("ka");
  const kiln::Image in_place = raw.image("kb", 1);
  for (int round = 0; round < 3; ++round) {
    compressed.kernel("ka");
    compressed.preload();
    raw.image("ka");
    raw.image_for_arch("kb", 120);
    compressed.image_for_arch("ka", 86);
  }
  expect_image(decoded, image_text("a.cu", "sm_90"), true);
  expect_image(in_place, image_text("b.cu", "sm_80"), false);
  EXPECT_EQ(decoded.description, "cubin sm_90 (exact match)");
  EXPECT_EQ(compressed.image("ka").description.data(), decoded.description.data());  // kept once
  EXPECT_EQ(in_place.lowered_name, "kb");
  bool own_string = false;  // the package's own target string, not a copy
  for (std::size_t i = 0; i < kiln_package_target_count(raw.get()); ++i) {
    own_string = own_string || in_place.target.data() == kiln_package_target(raw.get(), i);
  }
  EXPECT_TRUE(own_string);
}

TEST_F(RuntimeTest, ConcurrentSelectionsDecodeEachImageOnceAndAgree) {
  constexpr int k_threads = 16;
  constexpr int k_iterations = 200;
  fake->devices = {FakeDevice{80}, FakeDevice{90}};
  kiln::Package package = open(two_unit_package(/*compressible=*/true));
  std::mutex mutex;
  std::map<std::string, std::set<const std::byte*>> seen;  // "ka sm_90" -> every data pointer seen
  const int failures = run_concurrently(k_threads, k_iterations, [&](int t, int i) {
    const std::string name = (i + t) % 2 ? "ka" : "kb";
    kiln::Image image;
    switch ((i + t) % 3) {
      case 0: image = package.image(name); break;
      case 1: image = package.image_for_arch(name, t % 2 ? 90 : 80); break;
      default: image = package.image(name, (t + 1) % 2); package.kernel(name); break;
    }
    std::lock_guard lock(mutex);
    seen[std::string(image.kernel_name) + " " + std::string(image.target)].insert(image.data);
  });
  EXPECT_EQ(failures, 0);
  ASSERT_EQ(seen.size(), 4u);  // ka and kb, each for sm_80 and sm_90
  for (const auto& [image, pointers] : seen) EXPECT_EQ(pointers.size(), 1u) << image;
  std::vector<std::string> loads = fake->loads();
  std::sort(loads.begin(), loads.end());
  EXPECT_EQ(loads, (std::vector<std::string>{image_text("a.cu", "sm_80"), image_text("a.cu", "sm_90"),
                                             image_text("b.cu", "sm_80"), image_text("b.cu", "sm_90")}));
}

}  // namespace
}  // namespace kiln::testing
