// NAME_INDEX: written with every package, finds every name in one probe; an empty one and a damaged
// one still find every name, and never the wrong kernel; kiln verify's check.
#include "format/name_index.hpp"
#include "package_fixture.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>

namespace kiln::format::testing {
namespace {

std::vector<NameIndexSlot> slots_of(const Bytes& file) {
  const TocEntry entry = section_of(file, SectionKind::name_index);
  std::vector<NameIndexSlot> slots(entry.size / sizeof(NameIndexSlot));
  std::memcpy(slots.data(), file.data() + entry.offset, entry.size);
  return slots;
}

void check_every_name_is_found(const PackageReader& reader) {
  for (std::uint32_t i = 0; i < reader.name_count(); ++i) {
    const NameView name = reader.name(i);
    EXPECT_EQ(reader.find_kernel(name.name), name.kernel) << name.name;
  }
  EXPECT_EQ(reader.find_kernel("no_such_kernel<int>"), std::nullopt);
}

TEST(NameIndex, EveryPackageHasOneThatFindsEveryName) {
  const Bytes file = write_ok(variant_contents());
  const PackageReader reader = open_ok(file);
  EXPECT_EQ(reader.version_minor(), k_version_minor);
  const std::vector<NameIndexSlot> slots = slots_of(file);
  EXPECT_EQ(slots.size(), detail::name_index_size(reader.name_count()));
  EXPECT_GE(slots.size(), 2u * reader.name_count());
  EXPECT_EQ(slots.size() & (slots.size() - 1), 0u);
  std::size_t used = 0;
  for (const NameIndexSlot slot : slots) used += slot != 0;
  EXPECT_EQ(used, reader.name_count());
  EXPECT_TRUE(reader.check_name_index());
  check_every_name_is_found(reader);
  // Spellings are normalized before the probe, as before the search.
  EXPECT_EQ(reader.find_kernel("scale< float >"), reader.find_kernel("scale<float>"));
}

TEST(NameIndex, SlotCounts) {
  EXPECT_EQ(detail::name_index_size(0), 8u);
  EXPECT_EQ(detail::name_index_size(4), 8u);
  EXPECT_EQ(detail::name_index_size(5), 16u);
  EXPECT_EQ(detail::name_index_size(10000), 32768u);
}

// An empty NAME_INDEX (no slots) finds nothing, so every name is found by searching NAMES; kiln verify
// reports it. Without the section a file is not a package of this format.
TEST(NameIndex, AnEmptyOneFindsEveryNameBySearchingAndVerifyReportsIt) {
  const Bytes written = write_ok(variant_contents());
  Layout layout = layout_of(written);
  for (LaidSection& section : layout.sections)
    if (section.kind == static_cast<std::uint32_t>(SectionKind::name_index)) section.bytes.clear();
  const Bytes file = lay_out(layout);   // the reader reads it in place
  EXPECT_EQ(section_of(file, SectionKind::name_index).size, 0u);
  const PackageReader reader = open_ok(file);
  check_every_name_is_found(reader);
  EXPECT_NE(text_of(reader.check_name_index()).find("NAME_INDEX has 0 slots for"), std::string::npos) << text_of(reader.check_name_index());
  expect_corrupt(without_section(written, SectionKind::name_index), "no NAME_INDEX section");
}

TEST(NameIndex, AWrongIndexCostsTimeNeverAWrongKernel) {
  const Bytes good = write_ok(variant_contents());
  const TocEntry entry = section_of(good, SectionKind::name_index);
  const std::size_t count = entry.size / sizeof(NameIndexSlot);
  const auto rewrite = [&](const std::function<NameIndexSlot(std::size_t)>& slot) {
    Bytes file = good;
    for (std::size_t i = 0; i < count; ++i) {
      const NameIndexSlot value = slot(i);
      std::memcpy(file.data() + entry.offset + i * sizeof value, &value, sizeof value);
    }
    reseal(file);
    return file;
  };
  // Empty; every slot naming record 0; out-of-range records; every slot full (no empty slot ends a probe).
  for (const Bytes& file : {rewrite([](std::size_t) { return 0u; }), rewrite([](std::size_t) { return 1u; }),
                            rewrite([](std::size_t i) { return static_cast<NameIndexSlot>(1000 + i); }),
                            rewrite([](std::size_t i) { return static_cast<NameIndexSlot>(i % 3 + 1); })}) {
    const PackageReader reader = open_ok(file);
    check_every_name_is_found(reader);
    EXPECT_FALSE(reader.check_name_index());
  }
  const Bytes emptied = rewrite([](std::size_t) { return 0u; });   // the reader reads it in place
  const PackageReader empty = open_ok(emptied);
  EXPECT_NE(text_of(empty.check_name_index()).find("NAME_INDEX does not find the name"), std::string::npos)
      << text_of(empty.check_name_index());
}

TEST(NameIndex, ASizeThatIsNoPowerOfTwoIsReportedAndIgnored) {
  const Bytes good = write_ok(variant_contents());
  std::vector<std::pair<SectionKind, Bytes>> sections;
  for (const TocEntry& entry : toc_of(good)) {
    Bytes bytes(good.begin() + static_cast<std::ptrdiff_t>(entry.offset),
                good.begin() + static_cast<std::ptrdiff_t>(entry.offset + entry.size));
    if (entry.kind == static_cast<std::uint32_t>(SectionKind::name_index)) bytes.assign(3 * sizeof(NameIndexSlot), std::byte{1});
    sections.emplace_back(static_cast<SectionKind>(entry.kind), std::move(bytes));
  }
  const Bytes file = assemble(sections);   // the reader reads it in place
  const PackageReader reader = open_ok(file);
  check_every_name_is_found(reader);
  EXPECT_NE(text_of(reader.check_name_index()).find("NAME_INDEX has 3 slots for"), std::string::npos) << text_of(reader.check_name_index());
}

}  // namespace
}  // namespace kiln::format::testing
