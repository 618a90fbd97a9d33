// KERNEL_TARGETS: kernels that only some images of their unit hold. Written sorted and only for such
// kernels (empty when every kernel is in every image), read back through kernel_in_target and
// kernel_targets, refused when damaged.
#include "package_fixture.hpp"

#include <gtest/gtest.h>

namespace kiln::format::testing {
namespace {

using Indices = std::vector<std::uint32_t>;

// block_sum (kernels/saxpy.cu: sm_80, sm_90a, compute_80 images) only in sm_90a and compute_80.
PackageContents partial_contents(std::vector<std::string> targets = {"compute_80", "sm_90a"}) {
  PackageContents c = sample_contents();
  for (PackageKernel& k : c.kernels)
    if (k.canonical_name == "red::block_sum<float, 256>") k.targets = targets;
  return c;
}

std::uint32_t kernel_index(const PackageReader& r, std::string_view name) { return *r.find_kernel(name); }

TEST(KernelTargets, OnlyTheImagesThatHoldAKernelAreRecorded) {
  const Bytes file = write_ok(partial_contents());
  const PackageReader r = open_ok(file);
  EXPECT_EQ(r.version_minor(), k_version_minor);
  const std::uint32_t sum = kernel_index(r, "block_sum<float,256>");
  EXPECT_FALSE(r.kernel_in_every_image(sum));
  EXPECT_EQ(r.kernel_targets(sum), (Indices{1, 2}));   // sm_90a, compute_80, in target order
  EXPECT_FALSE(r.kernel_in_target(sum, 0));
  EXPECT_TRUE(r.kernel_in_target(sum, 1));
  EXPECT_TRUE(r.kernel_in_target(sum, 2));
  const std::uint32_t saxpy = kernel_index(r, "saxpy");
  EXPECT_TRUE(r.kernel_in_every_image(saxpy));
  EXPECT_EQ(r.kernel_targets(saxpy), (Indices{0, 1, 2}));
  EXPECT_TRUE(r.kernel_in_target(saxpy, 0));
  // Two records: (block_sum, sm_90a), (block_sum, compute_80); nothing for the other kernels.
  EXPECT_EQ(section_of(file, SectionKind::kernel_targets).size, 2 * sizeof(KernelTargetRecord));
  EXPECT_TRUE(r.verify_all_sections());
}

TEST(KernelTargets, TheOrderTheTargetsAreGivenInDoesNotChangeTheBytes) {
  EXPECT_EQ(write_ok(partial_contents({"compute_80", "sm_90a"})), write_ok(partial_contents({"sm_90a", "compute_80"})));
}

TEST(KernelTargets, AnEmptySectionPutsEveryKernelInEveryImage) {
  const Bytes file = write_ok(sample_contents());
  EXPECT_EQ(section_of(file, SectionKind::kernel_targets).size, 0u);
  const PackageReader r = open_ok(file);
  for (std::uint32_t k = 0; k < r.kernel_count(); ++k) {
    EXPECT_TRUE(r.kernel_in_every_image(k));
    for (std::uint32_t t = 0; t < r.target_count(); ++t) EXPECT_TRUE(r.kernel_in_target(k, t));
  }
  // The section is required all the same: without it a file is not a package of this format.
  expect_corrupt(without_section(file, SectionKind::kernel_targets), "no KERNEL_TARGETS section");
}

TEST(KernelTargets, TheWriterRefusesATargetTheUnitHasNoImageFor) {
  PackageContents c = sample_contents();
  for (PackageKernel& k : c.kernels)
    if (k.canonical_name == "scale<float>") k.targets = {"sm_90a"};   // scale.cu: compute_80 and sm_80 only
  EXPECT_EQ(message_of(write_package(c)),
            "kernel _Z5scaleIfEvPT_S0_i is said to be in the 'sm_90a' image of unit 'kernels/scale.cu', which has none");
  for (PackageKernel& k : c.kernels)
    if (k.canonical_name == "scale<float>") k.targets = {"sm_100"};
  EXPECT_EQ(message_of(write_package(c)),
            "kernel _Z5scaleIfEvPT_S0_i is said to be in the 'sm_100' image of unit 'kernels/scale.cu', which has none");
}

TEST(KernelTargets, DamagedRecordsAreRefusedNamingTheRecord) {
  const Bytes good = write_ok(partial_contents());
  const auto edited = [&](std::size_t i, KernelTargetRecord r) {
    Bytes file = good;
    set_record(file, SectionKind::kernel_targets, i, r);
    reseal(file);
    return file;
  };
  expect_corrupt(edited(1, {2, 1}), "KERNEL_TARGETS record 1: out of order or a duplicate (the table is sorted by "
                                    "kernel, then target)");
  expect_corrupt(edited(0, {9, 1}), "KERNEL_TARGETS record 0: kernel 9 is out of range (4 KERNELS records)");
  expect_corrupt(edited(0, {2, 3}), "KERNEL_TARGETS record 0: target 3 is out of range (3 TARGETS records)");
  // Kernel 1 is scale<float>, whose unit (kernels/scale.cu) has no sm_90a image.
  expect_corrupt(edited(0, {1, 1}), "KERNEL_TARGETS record 0: target 1 has no image in unit 1, the unit of kernel 1");
  // A section that is not a whole number of records.
  Bytes torn = good;
  TocEntry entry = section_of(torn, SectionKind::kernel_targets);
  const std::vector<TocEntry> toc = toc_of(torn);
  for (std::size_t i = 0; i < toc.size(); ++i)
    if (toc[i].kind == static_cast<std::uint32_t>(SectionKind::kernel_targets)) {
      entry.size -= 4;   // the 4 bytes left behind become padding, which must be zero
      for (std::uint64_t at = entry.offset + entry.size; at < entry.offset + entry.size + 4; ++at) torn[at] = std::byte{0};
      set_toc_entry(torn, i, entry);
    }
  reseal(torn);
  expect_corrupt(torn, "KERNEL_TARGETS section size 12 is not a multiple of 8");
}

}  // namespace
}  // namespace kiln::format::testing
