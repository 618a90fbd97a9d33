// Variant kernels: a kernel of a source variant is stored as "<variant>/<symbol>" with
// k_kernel_variant set. Readers give the symbol as lowered_name, the rest through variant and
// stored_name; the flag and the '/' go together, in the writer and in the reader.
#include "package_fixture.hpp"

#include "format/names.hpp"
#include "format/record_io.hpp"

#include <gtest/gtest.h>

namespace kiln::format::testing {
namespace {

constexpr std::uint32_t k_variant_kernel = 4;   // f64/_Z5scaleIdEvPT_S0_i, in variant_contents()

TEST(VariantKernels, TheLoweredNameIsTheSymbolAfterTheVariant) {
  const Bytes file = write_ok(variant_contents());
  const PackageReader r = open_ok(file);
  EXPECT_EQ(r.version_minor(), k_version_minor);
  const KernelView v = r.kernel(k_variant_kernel);
  EXPECT_EQ(v.stored_name, "f64/_Z5scaleIdEvPT_S0_i");
  EXPECT_EQ(v.lowered_name, "_Z5scaleIdEvPT_S0_i");
  EXPECT_EQ(v.lowered_name.data()[v.lowered_name.size()], '\0') << "handed to the driver as a C string";
  EXPECT_EQ(v.variant, "f64");
  EXPECT_EQ(v.canonical_name, "f64/scale<double>");
  EXPECT_EQ(r.unit(v.unit).source, "f64");
  EXPECT_EQ(v.flags, std::uint32_t{k_kernel_template | k_kernel_variant});
  // The plain kernel of the same symbol, in kernels/scale.cu.
  const KernelView plain = r.kernel(*r.find_kernel("scale<double>"));
  EXPECT_EQ(plain.lowered_name, "_Z5scaleIdEvPT_S0_i");
  EXPECT_EQ(plain.stored_name, plain.lowered_name);
  EXPECT_EQ(plain.variant, "");
  EXPECT_EQ(r.unit(plain.unit).source, "kernels/scale.cu");
  EXPECT_TRUE(r.verify_all_sections());
}

TEST(VariantKernels, FoundByTheirVariantNamesOnly) {
  const Bytes r_bytes = write_ok(variant_contents());  // the reader reads these bytes in place
  const PackageReader r = open_ok(r_bytes);
  EXPECT_EQ(r.find_kernel("f64/scale<double>"), k_variant_kernel);
  EXPECT_EQ(r.find_kernel("f64/scale< double >"), k_variant_kernel);
  EXPECT_EQ(r.find_kernel("f64/_Z5scaleIdEvPT_S0_i"), k_variant_kernel);
  // The bare symbol and canonical name are the plain kernel's.
  EXPECT_NE(r.find_kernel("_Z5scaleIdEvPT_S0_i"), k_variant_kernel);
  EXPECT_EQ(r.find_kernel("_Z5scaleIdEvPT_S0_i"), r.find_kernel("scale<double>"));
}

TEST(VariantKernels, TheWriterKeepsTheFlagAndTheSlashTogether) {
  const auto written = [](const std::string& lowered, std::uint32_t flags) {
    PackageContents c = variant_contents();
    c.kernels.push_back({lowered, "extra", "f64", flags, {}, {}});
    return message_of(write_package(c));
  };
  EXPECT_EQ(written("f64_Z5extrav", k_kernel_variant),
            "kernel f64_Z5extrav (f64) is flagged as a variant kernel, but its lowered name is not '<variant>/<symbol>'");
  EXPECT_EQ(written("f64/", k_kernel_variant),
            "kernel f64/ (f64) is flagged as a variant kernel, but its lowered name is not '<variant>/<symbol>'");
  EXPECT_EQ(written("/_Z5extrav", k_kernel_variant),
            "kernel /_Z5extrav (f64) is flagged as a variant kernel, but its lowered name is not '<variant>/<symbol>'");
  EXPECT_EQ(written("f64/_Z5extrav", 0),
            "kernel f64/_Z5extrav (f64) has a '/' in its lowered name but is not flagged as a variant kernel");
  EXPECT_EQ(written("f64/_Z5extrav", k_kernel_variant), "");
}

TEST(VariantKernels, AFlagWithoutASlashOrASlashWithoutTheFlagIsCorrupt) {
  const Bytes good = write_ok(variant_contents());
  Bytes unflagged = good;
  auto k = get_record<KernelRecord>(unflagged, SectionKind::kernels, k_variant_kernel);
  k.flags &= ~std::uint32_t{k_kernel_variant};
  set_record(unflagged, SectionKind::kernels, k_variant_kernel, k);
  reseal(unflagged);
  expect_corrupt(unflagged, "KERNELS record 4: kernel 'f64/_Z5scaleIdEvPT_S0_i' has a '/' in its lowered name but is "
                            "not flagged as a variant kernel");
  Bytes flagged = good;
  k = get_record<KernelRecord>(flagged, SectionKind::kernels, 0);
  k.flags |= k_kernel_variant;
  set_record(flagged, SectionKind::kernels, 0, k);
  reseal(flagged);
  expect_corrupt(flagged, "KERNELS record 0: kernel '_Z4pingv' is flagged as a variant kernel, but its lowered name "
                          "is not '<variant>/<symbol>'");
}

// One unit "u" and one variant kernel whose stored name is `lowered`: a variant or symbol left empty.
Bytes one_variant_kernel(const std::string& lowered) {
  Bytes strings = bytes_of(std::string(1, '\0') + "u" + '\0' + lowered + '\0');
  const StrRef unit{1, 1};
  const StrRef name{3, static_cast<std::uint32_t>(lowered.size())};
  Bytes units, kernels;
  detail::append_record(units, UnitRecord{unit, 0, 0});
  detail::append_record(kernels, KernelRecord{name, name, 0, 0, 0, k_kernel_variant});
  return assemble({{SectionKind::strings, strings}, {SectionKind::targets, {}}, {SectionKind::units, units},
                   {SectionKind::images, {}}, {SectionKind::kernels, kernels}, {SectionKind::params, {}},
                   {SectionKind::names, {}}, {SectionKind::variables, {}}, {SectionKind::sources, {}},
                   {SectionKind::metadata, {}}, {SectionKind::blobs, {}}});
}

TEST(VariantKernels, AnEmptyVariantOrSymbolIsCorrupt) {
  expect_corrupt(one_variant_kernel("f64/"),
                 "KERNELS record 0: kernel 'f64/' is flagged as a variant kernel, but its lowered name is not "
                 "'<variant>/<symbol>'");
  expect_corrupt(one_variant_kernel("/_Z1kv"),
                 "KERNELS record 0: kernel '/_Z1kv' is flagged as a variant kernel, but its lowered name is not "
                 "'<variant>/<symbol>'");
}

TEST(VariantKernels, SplitAtTheFirstSlash) {
  const auto split = split_variant_name("f64/a/b");
  ASSERT_TRUE(split);
  EXPECT_EQ(split->variant, "f64");
  EXPECT_EQ(split->symbol, "a/b");
  EXPECT_FALSE(split_variant_name("_Z1kv"));
  EXPECT_FALSE(split_variant_name("f64/"));
  EXPECT_FALSE(split_variant_name("/k"));
  EXPECT_FALSE(split_variant_name(""));
}

// Without variants or link groups UNIT_SOURCES is empty (it is required all the same), every unit is
// the one source its name is, and every kernel's lowered name is its stored name.
TEST(VariantKernels, WithoutVariantsEveryUnitIsItsSourceAndEveryKernelItsSymbol) {
  const Bytes file = write_ok(sample_contents());
  EXPECT_EQ(section_of(file, SectionKind::unit_sources).size, 0u);
  const PackageReader r = open_ok(file);
  for (std::uint32_t u = 0; u < r.unit_count(); ++u) {
    EXPECT_EQ(r.unit_kind(u), UnitKind::source);
    EXPECT_EQ(r.unit_sources(u), std::vector<std::string_view>{r.unit(u).source});
  }
  for (std::uint32_t k = 0; k < r.kernel_count(); ++k) {
    EXPECT_EQ(r.kernel(k).lowered_name, r.kernel(k).stored_name);
    EXPECT_EQ(r.kernel(k).variant, "");
  }
  expect_corrupt(without_section(file, SectionKind::unit_sources), "no UNIT_SOURCES section");
}

}  // namespace
}  // namespace kiln::format::testing
