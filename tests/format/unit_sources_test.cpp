// UNIT_SOURCES: what a link group or a source variant is built from. Written sorted, only for units
// whose sources are not just their name, read back through unit_kind/unit_sources, refused when
// damaged.
#include "package_fixture.hpp"

#include "format/record_io.hpp"

#include <gtest/gtest.h>

namespace kiln::format::testing {
namespace {

using Views = std::vector<std::string_view>;

// Units of variant_contents(), sorted by name.
constexpr std::uint32_t k_f64 = 0, k_saxpy = 1, k_scale = 2, k_rdc = 3;

TEST(UnitSources, LinkGroupsAndVariantsReadBack) {
  const Bytes file = write_ok(variant_contents());
  const PackageReader r = open_ok(file);
  ASSERT_EQ(r.unit_count(), 4u);
  EXPECT_EQ(r.unit(k_f64).source, "f64");
  EXPECT_EQ(r.unit_kind(k_f64), UnitKind::variant);
  EXPECT_EQ(r.unit_sources(k_f64), (Views{"kernels/scale.cu"}));
  EXPECT_EQ(r.unit(k_rdc).source, "rdc");
  EXPECT_EQ(r.unit_kind(k_rdc), UnitKind::link_group);
  EXPECT_EQ(r.unit_sources(k_rdc), (Views{"rdc/a.cu", "rdc/b.cu"}));   // in string order
  EXPECT_EQ(r.unit_kind(k_saxpy), UnitKind::source);
  EXPECT_EQ(r.unit_sources(k_saxpy), (Views{"kernels/saxpy.cu"}));
  EXPECT_EQ(r.unit_sources(k_scale), (Views{"kernels/scale.cu"}));
  EXPECT_EQ(r.unit_sources(4), Views{});
  // Three records, sorted by (unit, source), the role of each unit's kind.
  ASSERT_EQ(section_of(file, SectionKind::unit_sources).size, 3 * sizeof(UnitSourceRecord));
  const auto record = [&](std::size_t i) { return get_record<UnitSourceRecord>(file, SectionKind::unit_sources, i); };
  EXPECT_EQ(record(0).unit, k_f64);
  EXPECT_EQ(record(0).role, static_cast<std::uint32_t>(UnitSourceRole::variant_of));
  EXPECT_EQ(record(1).unit, k_rdc);
  EXPECT_EQ(record(2).unit, k_rdc);
  EXPECT_EQ(record(2).role, static_cast<std::uint32_t>(UnitSourceRole::link_member));
  // The variant's source is the string UNITS names kernels/scale.cu with: each string is stored once.
  EXPECT_EQ(record(0).source.offset, get_record<UnitRecord>(file, SectionKind::units, k_scale).source.offset);
  EXPECT_TRUE(r.verify_all_sections());
}

TEST(UnitSources, AGroupOfItsOwnNameIsAPlainUnit) {
  PackageContents c = sample_contents();
  c.units[0].sources = {c.units[0].source};
  const Bytes file = write_ok(c);
  EXPECT_EQ(section_of(file, SectionKind::unit_sources).size, 0u);
  EXPECT_EQ(file, write_ok(sample_contents()));
}

TEST(UnitSources, TheOrderSourcesAreGivenInDoesNotChangeTheBytes) {
  PackageContents c = variant_contents();
  c.units.back().sources = {"rdc/a.cu", "rdc/b.cu"};
  EXPECT_EQ(write_ok(c), write_ok(variant_contents()));
}

TEST(UnitSources, TwoVariantsOfOneFileShareItsString) {
  PackageContents c = variant_contents();
  PackageUnit f16{"f16", {{"sm_80", random_bytes(100, 9), 0}}};
  f16.sources = {"kernels/scale.cu"};
  f16.variant = true;
  c.units.push_back(std::move(f16));
  const Bytes file = write_ok(c);
  const PackageReader r = open_ok(file);
  EXPECT_EQ(r.unit_kind(0), UnitKind::variant);   // f16
  EXPECT_EQ(r.unit_sources(0), (Views{"kernels/scale.cu"}));
  EXPECT_EQ(get_record<UnitSourceRecord>(file, SectionKind::unit_sources, 0).source.offset,
            get_record<UnitSourceRecord>(file, SectionKind::unit_sources, 1).source.offset);
}

TEST(UnitSources, TheWriterRefusesInconsistentSources) {
  const auto written = [](auto edit) {
    PackageContents c = variant_contents();
    edit(c.units[2], c.units[3]);   // f64, rdc (as given)
    return message_of(write_package(c));
  };
  EXPECT_EQ(written([](PackageUnit& f64, PackageUnit&) { f64.sources.clear(); }),
            "unit 'f64' is a variant, of one source, but names 0");
  EXPECT_EQ(written([](PackageUnit& f64, PackageUnit&) { f64.sources.push_back("kernels/saxpy.cu"); }),
            "unit 'f64' is a variant, of one source, but names 2");
  EXPECT_EQ(written([](PackageUnit&, PackageUnit& rdc) { rdc.sources.push_back(""); }), "unit 'rdc' names an empty source");
  EXPECT_EQ(written([](PackageUnit&, PackageUnit& rdc) { rdc.sources.push_back("rdc/b.cu"); }),
            "unit 'rdc' names source 'rdc/b.cu' twice");
}

// variant_contents() written, with UNIT_SOURCES record i replaced.
Bytes edited(std::size_t i, const std::function<void(UnitSourceRecord&, const Bytes&)>& edit) {
  Bytes file = write_ok(variant_contents());
  auto r = get_record<UnitSourceRecord>(file, SectionKind::unit_sources, i);
  edit(r, file);
  set_record(file, SectionKind::unit_sources, i, r);
  reseal(file);
  return file;
}

UnitSourceRecord record_of(const Bytes& file, std::size_t i) {
  return get_record<UnitSourceRecord>(file, SectionKind::unit_sources, i);
}

TEST(UnitSources, DamagedRecordsAreRefusedNamingTheRecord) {
  expect_corrupt(edited(2, [](auto& r, const Bytes& f) { r.source = record_of(f, 1).source; }),
                 "UNIT_SOURCES record 2: out of order or a duplicate (the table is sorted by unit, then source)");
  expect_corrupt(edited(1, [](auto& r, const Bytes& f) { r.source = record_of(f, 2).source; }),
                 "UNIT_SOURCES record 2: out of order or a duplicate (the table is sorted by unit, then source)");
  expect_corrupt(edited(2, [](auto& r, const Bytes&) { r.unit = k_saxpy; }),
                 "UNIT_SOURCES record 2: out of order or a duplicate (the table is sorted by unit, then source)");
  expect_corrupt(edited(2, [](auto& r, const Bytes&) { r.unit = 4; }),
                 "UNIT_SOURCES record 2: unit 4 is out of range (4 UNITS records)");
  expect_corrupt(edited(1, [](auto& r, const Bytes&) { r.role = 2; }), "UNIT_SOURCES record 1: unknown role 2");
  expect_corrupt(edited(2, [](auto& r, const Bytes&) { r.role = 1; }),
                 "UNIT_SOURCES record 2: role 1 differs from record 1's (0), of the same unit 3");
  expect_corrupt(edited(1, [](auto& r, const Bytes&) { r.unit = k_f64; }),
                 "UNIT_SOURCES record 1: role 0 differs from record 0's (1), of the same unit 0");
  expect_corrupt(edited(0, [](auto& r, const Bytes&) { r.source = {0, 0}; }), "UNIT_SOURCES record 0: source is empty");
  expect_corrupt(edited(0, [](auto& r, const Bytes&) { r.source.length += 1; }),
                 "UNIT_SOURCES record 0: source (offset " +
                     std::to_string(record_of(write_ok(variant_contents()), 0).source.offset) +
                     ", length 17) is not a NUL-terminated string inside STRINGS");
  // "b.cu", the end of record 2's "rdc/b.cu": two references to one string's bytes.
  expect_corrupt(edited(1, [](auto& r, const Bytes& f) { r.source = {record_of(f, 2).source.offset + 4, 4}; }),
                 "UNIT_SOURCES record 2: source shares its bytes in STRINGS with record 1's");
}

TEST(UnitSources, AVariantHasOneSourceAndAGroupMoreThanItsName) {
  // rdc's two records made a variant's.
  Bytes two = write_ok(variant_contents());
  for (std::size_t i : {1, 2}) {
    auto r = record_of(two, i);
    r.role = static_cast<std::uint32_t>(UnitSourceRole::variant_of);
    set_record(two, SectionKind::unit_sources, i, r);
  }
  reseal(two);
  expect_corrupt(two, "UNIT_SOURCES record 2: unit 3 is a variant, of one source, but has 2 records");
  // f64's record made a link group member named like the unit ("kernels/scale.cu" is unit 2).
  Bytes own = edited(0, [](auto& r, const Bytes&) {
    r.unit = k_scale;
    r.role = static_cast<std::uint32_t>(UnitSourceRole::link_member);
  });
  expect_corrupt(own, "UNIT_SOURCES record 0: the only source of unit 2 is its own name (a unit of one source file "
                      "has no records)");
}

TEST(UnitSources, TheSectionIsWholeRecordsAndAppearsOnce) {
  Bytes torn = write_ok(variant_contents());
  const std::vector<TocEntry> toc = toc_of(torn);
  for (std::size_t i = 0; i < toc.size(); ++i)
    if (toc[i].kind == static_cast<std::uint32_t>(SectionKind::unit_sources)) {
      TocEntry entry = toc[i];
      entry.size -= 4;   // the 4 bytes left behind become padding, which must be zero
      for (std::uint64_t at = entry.offset + entry.size; at < entry.offset + entry.size + 4; ++at) torn[at] = std::byte{0};
      set_toc_entry(torn, i, entry);
    }
  reseal(torn);
  expect_corrupt(torn, "UNIT_SOURCES section size 44 is not a multiple of 16");

  Bytes strings(1), units;
  detail::append_record(units, UnitRecord{{0, 0}, 0, 0});
  expect_corrupt(assemble({{SectionKind::strings, strings}, {SectionKind::targets, {}}, {SectionKind::units, units},
                           {SectionKind::images, {}}, {SectionKind::kernels, {}}, {SectionKind::params, {}},
                           {SectionKind::names, {}}, {SectionKind::variables, {}}, {SectionKind::sources, {}},
                           {SectionKind::metadata, {}}, {SectionKind::unit_sources, {}},
                           {SectionKind::unit_sources, {}}, {SectionKind::blobs, {}}}),
                 "two UNIT_SOURCES sections");
}

}  // namespace
}  // namespace kiln::format::testing
