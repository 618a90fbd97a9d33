// A package read by pages answers what one read whole answers (docs/runtime.md, "Large indexes"):
// each rule that decides which kernel a name finds, or which image holds a kernel, is checked before
// the answer is given, so a file that a whole read refuses gives an error at the first use of what
// is wrong, never another kernel or an image without the kernel. One test per rule; each edit keeps
// every checksum right, so that only the tables' rules can find it.
#include "index_pages_fixture.hpp"

#include "core/package.hpp"
#include "format/names.hpp"
#include "format/package_reader.hpp"
#include "package_fixture.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace kiln::testing {
namespace {

using format::SectionKind;

// The NAMES record of `name` in `bytes`, opened whole (NAMES holds each name once, normalized).
std::uint32_t name_record(const Bytes& bytes, const std::string& name) {
  format::PackageReader reader;
  EXPECT_TRUE(reader.open(bytes));
  for (std::uint32_t i = 0; i < reader.name_count(); ++i) {
    if (reader.name(i).name == format::normalize_name(name)) return i;
  }
  ADD_FAILURE() << "no NAMES record of " << name;
  return UINT32_MAX;
}

// NAME_INDEX's slot that holds NAMES record `record`, made to hold `other` instead.
void point_slot(Bytes& bytes, std::uint32_t record, std::uint32_t other) {
  const format::TocEntry slots = format::testing::section_of(bytes, SectionKind::name_index);
  for (std::uint64_t at = slots.offset; at < slots.offset + slots.size; at += sizeof(format::NameIndexSlot)) {
    format::NameIndexSlot slot;
    std::memcpy(&slot, bytes.data() + at, sizeof slot);
    if (slot != record + 1) continue;
    slot = other + 1;
    std::memcpy(bytes.data() + at, &slot, sizeof slot);
    format::testing::reseal(bytes);
    return;
  }
  ADD_FAILURE() << "no slot holds NAMES record " << record;
}

// paged_spec() with units built for sm_80, sm_90 and compute_90, every tenth kernel only in the sm_90
// image (KERNEL_TARGETS records), and kernel 5 in none of this file's (a split package's).
Bytes partial_package() {
  PackageSpec spec = paged_spec();
  for (UnitSpec& unit : spec.units) unit.targets = {"sm_80", "sm_90", "compute_90"};
  for (std::uint32_t i = 0; i < k_paged_kernels; i += 10) spec.kernels[i].only_in({"sm_90"});
  spec.kernels[5].elsewhere();
  return build_package(spec);
}

// The last KERNEL_TARGETS record made a record of kernel `kernel`: out of order, where the binary
// search for the kernel's records never looks.
void misplace_target_record(Bytes& bytes, std::uint32_t kernel) {
  const std::uint32_t last = static_cast<std::uint32_t>(format::testing::section_of(bytes, SectionKind::kernel_targets).size / 8) - 1;
  edit_record<format::KernelTargetRecord>(bytes, SectionKind::kernel_targets, last, [&](auto& r) { r.kernel = kernel; });
}

class PagedAnswers : public PagedFileTest {};

// Rule 11 through a name: the record of kernel 1's canonical name made to lead to kernel 2 (the issue's
// kern<1> -> kern<2>). Kernel 2's own names still find it, so only the whole NAMES tells.
TEST_F(PagedAnswers, ANameThatLeadsToAnotherKernelIsAnErrorNeverThatKernel) {
  Bytes bytes = paged_package();
  const std::uint32_t k1 = index_in(bytes, tile_name(1)), k2 = index_in(bytes, tile_name(2));
  edit_record<format::NameRecord>(bytes, SectionKind::names, name_record(bytes, tile_name(1)), [&](auto& r) { r.kernel = k2; });
  write(bytes);
  const std::string whole = refused_whole();
  EXPECT_EQ(whole, m_path.string() + ": KERNELS record " + std::to_string(k1) + ": its canonical name 'ops::tile<1,1>' belongs to kernel " +
                       std::to_string(k2) + " in NAMES");
  kiln::Package package = open_path();
  EXPECT_EQ(package.find_kernel(tile_name(2)), k2);
  EXPECT_EQ(error_of([&] { package.find_kernel(tile_name(1)); }, KILN_STATUS_CORRUPT), whole);
  EXPECT_EQ(error_of([&] { package.image_for_arch(tile_name(1), 90); }, KILN_STATUS_CORRUPT), whole);
  EXPECT_EQ(kiln_package_kernel_name(package.get(), k1), nullptr) << "by index, its own name leads elsewhere";
  EXPECT_EQ(std::string(kiln_last_error()), whole);
  EXPECT_EQ(package.find_kernel(tile_name(2)), k2) << "the kernel the name led to still answers to its own";
}

// Rule 9 for KERNELS (one symbol, one kernel) and rule 11 for the lowered name: kernel 1's record
// given kernel 2's symbol would run kernel 2's code under kernel 1's name.
TEST_F(PagedAnswers, AKernelWhoseSymbolIsAnotherKernelsIsAnErrorAtItsFirstUse) {
  Bytes bytes = paged_package();
  const std::uint32_t k1 = index_in(bytes, tile_name(1)), k2 = index_in(bytes, tile_name(2));
  const format::StrRef symbol = format::testing::get_record<format::KernelRecord>(bytes, SectionKind::kernels, k2).lowered_name;
  edit_record<format::KernelRecord>(bytes, SectionKind::kernels, k1, [&](auto& r) { r.lowered_name = symbol; });
  write(bytes);
  const std::string whole = refused_whole();
  EXPECT_NE(whole.find(": out of order or a duplicate (the table is sorted by lowered name)"), std::string::npos) << whole;
  kiln::Package package = open_path();
  EXPECT_EQ(error_of([&] { package.find_kernel(tile_name(1)); }, KILN_STATUS_CORRUPT),
            m_path.string() + ": KERNELS record " + std::to_string(k1) + ": its lowered name '_ZN3ops4tileILi2ELi2EEEvPfi' belongs to kernel " +
                std::to_string(k2) + " in NAMES");
  EXPECT_EQ(package.find_kernel(tile_name(2)), k2);
  EXPECT_STREQ(kiln_package_kernel_lowered_name(package.get(), k2), "_ZN3ops4tileILi2ELi2EEEvPfi");
}

// Rule 9 for NAMES (sorted, no duplicates): a second record of kernel 1's canonical name, one of
// kernel 2's aliases before, which NAME_INDEX leads to first. Every kernel's own names still find it.
TEST_F(PagedAnswers, ANameRecordedTwiceWhoseIndexLeadsToTheWrongRecordIsAnError) {
  PackageSpec spec = paged_spec();
  spec.kernels[2].with_aliases({"ops::tile_alias<2>"});
  Bytes bytes = build_package(spec);
  const std::uint32_t k2 = index_in(bytes, tile_name(2));
  const std::uint32_t own = name_record(bytes, tile_name(1)), alias = name_record(bytes, "ops::tile_alias<2>");
  const format::StrRef name = format::testing::get_record<format::NameRecord>(bytes, SectionKind::names, own).name;
  edit_record<format::NameRecord>(bytes, SectionKind::names, alias, [&](auto& r) { r.name = name; });
  point_slot(bytes, own, alias);
  write(bytes);
  const std::string whole = refused_whole();
  EXPECT_NE(whole.find("NAMES record " + std::to_string(std::max(own, alias)) + ": out of order or a duplicate (the table is sorted by name)"),
            std::string::npos) << whole;
  kiln::Package package = open_path();
  EXPECT_EQ(package.find_kernel(tile_name(2)), k2);
  EXPECT_EQ(error_of([&] { package.find_kernel(tile_name(1)); }, KILN_STATUS_CORRUPT), whole);
}

// Rule 9 for KERNEL_TARGETS: a kernel's records are found by binary search, so one out of order would
// leave a kernel that only the sm_90 image holds taken for one every image holds (and PTX JIT-compiled
// for it on sm_100), and one in another file of a split package taken for one this file lacks.
TEST_F(PagedAnswers, KernelTargetsOutOfOrderAreAnErrorBeforeAnyKernelsImageIsChosen) {
  for (const std::uint32_t tile : {3u, 5u}) {   // in every image; in another file
    Bytes bytes = partial_package();
    const std::uint32_t kernel = index_in(bytes, tile_name(tile));
    misplace_target_record(bytes, kernel);
    write(bytes);
    const std::string whole = refused_whole();
    EXPECT_NE(whole.find(": out of order or a duplicate (the table is sorted by kernel, then target)"), std::string::npos) << whole;
    kiln::Package package = open_path();
    EXPECT_EQ(error_of([&] { package.image_for_arch(tile_name(tile), 100); }, KILN_STATUS_CORRUPT), whole) << tile;
    EXPECT_EQ(error_of([&] { package.find_kernel(tile_name(11)); }, KILN_STATUS_CORRUPT), whole) << tile;
  }
}

// Rule 9 for TARGETS: sm_90's record made a second sm_80, under which the sm_90 cubin would be chosen
// for an sm_86 device.
TEST_F(PagedAnswers, TargetsOutOfOrderAreAnErrorBeforeAnyKernelsImageIsChosen) {
  Bytes bytes = partial_package();
  const auto sm80 = format::testing::get_record<format::TargetRecord>(bytes, SectionKind::targets, 0);
  edit_record<format::TargetRecord>(bytes, SectionKind::targets, 1, [&](auto& r) { r = sm80; });
  write(bytes);
  const std::string whole = refused_whole();
  EXPECT_EQ(whole, m_path.string() + ": TARGETS record 1: out of order or a duplicate (the table is sorted by kind, arch, variant)");
  kiln::Package package = open_path();
  EXPECT_EQ(error_of([&] { package.image_for_arch(tile_name(3), 86); }, KILN_STATUS_CORRUPT), whole);
}

// Rule 9 for METADATA: its keys are found by binary search, and a split package's (split.files,
// split.id) are read at open, so they are checked there.
TEST_F(PagedAnswers, MetadataOutOfOrderIsAnErrorAtOpenWhereASplitPackagesKeysAreRead) {
  PackageSpec spec = paged_spec();
  spec.metadata = {{"nvrtc.version", "13.0"}, {"split.files", "cc12"}, {"split.id", "0123456789abcdef"}};
  Bytes bytes = build_package(spec);
  const auto first = format::testing::get_record<format::MetadataRecord>(bytes, SectionKind::metadata, 0);
  const auto second = format::testing::get_record<format::MetadataRecord>(bytes, SectionKind::metadata, 1);
  format::testing::set_record(bytes, SectionKind::metadata, 0, second);
  format::testing::set_record(bytes, SectionKind::metadata, 1, first);
  format::testing::reseal(bytes);
  write(bytes);
  const std::string whole = refused_whole();
  EXPECT_EQ(whole, m_path.string() + ": METADATA record 1: out of order or a duplicate (the table is sorted by key)");
  EXPECT_EQ(error_of([&] { open_path(); }, KILN_STATUS_CORRUPT), whole);
}

// A name that is not one of its kernel's own (an alias) can only be told from another kernel's own
// name by the whole of NAMES and KERNELS: it is handed out once the whole index is checked (its first
// use reads every page), where the kernel's own names read a few.
TEST_F(PagedAnswers, AKernelFoundByAnAliasIsHandedOutOnceTheWholeIndexIsChecked) {
  PackageSpec spec = paged_spec();
  spec.kernels[7].with_aliases({"ops::tile_alias<7>"});
  const Bytes bytes = build_package(spec);
  const std::uint32_t k7 = index_in(bytes, tile_name(7));
  write(bytes);
  kiln::Package package = open_path();
  const std::uint32_t page_count = core_of(package).reader().index_pages().page_count;
  EXPECT_EQ(package.find_kernel(tile_name(7)), k7);
  EXPECT_LT(pages_of(package)->pages_read(), page_count / 2);
  EXPECT_EQ(package.find_kernel("ops::tile_alias<7>"), k7);
  EXPECT_EQ(pages_of(package)->pages_read(), page_count);
}

}  // namespace
}  // namespace kiln::testing
