// Writing the sample package and reading it back: every table, every look-up, every image, and
// the layout rules of package-format.md (order, alignment, flags, strings).
#include "package_fixture.hpp"

#include "format/checksum.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>

namespace kiln::format::testing {
namespace {

TEST(PackageRoundTrip, TablesReadBackSorted) {
  const Bytes file = write_ok(sample_contents());
  const PackageReader r = open_ok(file);
  EXPECT_EQ(r.version_major(), 2);
  EXPECT_EQ(r.version_minor(), 0);
  EXPECT_EQ(r.bytes().size(), file.size());

  ASSERT_EQ(r.target_count(), 3u);  // sass before ptx, then arch, then variant
  EXPECT_EQ(r.target(0).name, "sm_80");
  EXPECT_EQ(r.target(1).name, "sm_90a");
  EXPECT_EQ(r.target(1).target, (Target{TargetKind::sass, 90, TargetVariant::arch_specific}));
  EXPECT_EQ(r.target(2).name, "compute_80");
  EXPECT_EQ(r.target(2).target.kind, TargetKind::ptx);

  ASSERT_EQ(r.unit_count(), 2u);
  EXPECT_EQ(r.unit(0).source, "kernels/saxpy.cu");
  EXPECT_EQ(r.unit(0).first_image, 0u);
  EXPECT_EQ(r.unit(0).image_count, 3u);
  EXPECT_EQ(r.unit(1).source, "kernels/scale.cu");
  EXPECT_EQ(r.unit(1).first_image, 3u);
  EXPECT_EQ(r.unit(1).image_count, 2u);

  ASSERT_EQ(r.image_count(), 5u);
  const std::uint32_t expected_targets[] = {0, 1, 2, 0, 2};
  for (std::uint32_t i = 0; i < 5; ++i) {
    EXPECT_EQ(r.image(i).index, i);
    EXPECT_EQ(r.image(i).unit, i < 3 ? 0u : 1u);
    EXPECT_EQ(r.image(i).target, expected_targets[i]);
    EXPECT_EQ(r.image(i).ptx_version, expected_targets[i] == 2 ? 80u : 0u);
  }

  ASSERT_EQ(r.kernel_count(), 4u);  // by lowered name
  EXPECT_EQ(r.kernel(0).lowered_name, "_Z5scaleIdEvPT_S0_i");
  EXPECT_EQ(r.kernel(1).lowered_name, "_Z5scaleIfEvPT_S0_i");
  EXPECT_EQ(r.kernel(2).lowered_name, "_Z9block_sumIfLi256EEvPKT_PS0_i");
  EXPECT_EQ(r.kernel(2).canonical_name, "red::block_sum<float, 256>");
  EXPECT_EQ(r.kernel(3).lowered_name, "saxpy");
  EXPECT_EQ(r.kernel(3).flags, k_kernel_extern_c | k_kernel_params_known);
  EXPECT_EQ(r.kernel(3).unit, 0u);
  EXPECT_EQ(r.kernel(0).unit, 1u);
  EXPECT_EQ(r.kernel(0).param_count, 0u);  // params not known
  ASSERT_EQ(r.kernel(3).param_count, 4u);
  EXPECT_EQ(r.kernel(3).param(1).offset, 8u);
  EXPECT_EQ(r.kernel(3).param(1).size, 8u);
  EXPECT_EQ(r.kernel(3).param(3).offset, 24u);
  EXPECT_EQ(r.kernel(3).param(4).size, 0u);  // past the end: a zeroed record
  EXPECT_EQ(r.kernel(1).param(2).size, 4u);

  ASSERT_EQ(r.variable_count(), 3u);
  EXPECT_EQ(r.variable(0).name, "counter");
  EXPECT_EQ(r.variable(0).kind, VariableKind::managed);
  EXPECT_EQ(r.variable(1).name, "ns::table");
  EXPECT_EQ(r.variable(1).lowered_name, "_ZN2ns5tableE");
  EXPECT_EQ(r.variable(1).size, 1024u);
  EXPECT_EQ(r.variable(1).unit, 0u);

  ASSERT_EQ(r.source_count(), 5u);
  EXPECT_EQ(r.source(0).path, "<cuda>");
  EXPECT_EQ(r.source(0).role, SourceRole::toolkit_headers);
  EXPECT_EQ(r.source(1).path, "kernels/common.cuh");
  EXPECT_EQ(r.source(1).role, SourceRole::header);
  EXPECT_EQ(r.source(4).path, "kiln.toml");
  EXPECT_EQ(r.source(4).content_hash, 0x1111u);

  ASSERT_EQ(r.metadata_count(), 4u);
  EXPECT_EQ(r.metadata(0).key, "empty");
  EXPECT_EQ(r.metadata_value("empty"), std::optional<std::string_view>(""));
  EXPECT_EQ(r.metadata_value("options"), std::optional<std::string_view>("-O3 --use_fast_math"));
  EXPECT_EQ(r.metadata_value("nvrtc.version"), std::optional<std::string_view>("13.0"));
  EXPECT_EQ(r.metadata_value("absent"), std::nullopt);
}

TEST(PackageRoundTrip, FindsKernelsByEverySpelling) {
  const Bytes file = write_ok(sample_contents());
  const PackageReader r = open_ok(file);
  const auto lowered = [&](std::string_view name) -> std::string {
    const auto k = r.find_kernel(name);
    return k ? std::string(r.kernel(*k).lowered_name) : "(none)";
  };
  EXPECT_EQ(lowered("saxpy"), "saxpy");
  EXPECT_EQ(lowered("  saxpy\n"), "saxpy");
  EXPECT_EQ(lowered("scale<float>"), "_Z5scaleIfEvPT_S0_i");
  EXPECT_EQ(lowered("scale < float >"), "_Z5scaleIfEvPT_S0_i");
  EXPECT_EQ(lowered("scale_f32"), "_Z5scaleIfEvPT_S0_i");
  EXPECT_EQ(lowered("_Z5scaleIfEvPT_S0_i"), "_Z5scaleIfEvPT_S0_i");
  EXPECT_EQ(lowered("scale<double>"), "_Z5scaleIdEvPT_S0_i");
  EXPECT_EQ(lowered("scale_f64"), "_Z5scaleIdEvPT_S0_i");
  EXPECT_EQ(lowered("red::block_sum<float,256>"), "_Z9block_sumIfLi256EEvPKT_PS0_i");
  EXPECT_EQ(lowered("red :: block_sum< float, 256 >"), "_Z9block_sumIfLi256EEvPKT_PS0_i");
  EXPECT_EQ(lowered("block_sum<float, 256>"), "_Z9block_sumIfLi256EEvPKT_PS0_i");
  EXPECT_EQ(lowered("scale<int>"), "(none)");
  EXPECT_EQ(lowered("scale"), "(none)");
  EXPECT_EQ(lowered(""), "(none)");
  EXPECT_EQ(lowered("zzz"), "(none)");

  // NAMES holds each kernel's normalized lowered and canonical names and aliases, once each.
  std::vector<std::string> names;
  for (std::uint32_t i = 0; i < r.name_count(); ++i) {
    names.emplace_back(r.name(i).name);
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"_Z5scaleIdEvPT_S0_i", "_Z5scaleIfEvPT_S0_i",
                                      "_Z9block_sumIfLi256EEvPKT_PS0_i", "block_sum<float,256>",
                                      "red::block_sum<float,256>", "saxpy", "scale<double>",
                                      "scale<float>", "scale_f32", "scale_f64"}));

  EXPECT_EQ(r.find_variable("ns :: table"), std::optional<std::uint32_t>(1));
  EXPECT_EQ(r.find_variable("counter"), std::optional<std::uint32_t>(0));
  EXPECT_EQ(r.find_variable("scale_factor"), std::optional<std::uint32_t>(2));
  EXPECT_EQ(r.find_variable("_ZN2ns5tableE"), std::nullopt);  // variables are found by name only
}

TEST(PackageRoundTrip, ImagesDecodeToTheirBytes) {
  const PackageContents contents = sample_contents();
  const Bytes file = write_ok(contents);
  const PackageReader r = open_ok(file);
  for (std::uint32_t i = 0; i < r.image_count(); ++i) {
    const ImageView image = r.image(i);
    const PackageUnit& unit =
        *std::find_if(contents.units.begin(), contents.units.end(),
                      [&](const auto& u) { return u.source == r.unit(image.unit).source; });
    const PackageImage& original =
        *std::find_if(unit.images.begin(), unit.images.end(),
                      [&](const auto& m) { return m.target == r.target(image.target).name; });
    const Result<std::vector<std::byte>> e = r.read_image(i);
    ASSERT_TRUE(e) << text_of(e);
    EXPECT_EQ(*e, original.bytes);
    EXPECT_EQ(image.raw_size, original.bytes.size());
    EXPECT_EQ(image.checksum, checksum(original.bytes));
    // Random bytes do not compress and stay raw; the others are stored as zstd.
    const bool random = r.target(image.target).target.kind == TargetKind::sass &&
                        r.target(image.target).name == "sm_80";
    EXPECT_EQ(image.encoding, random ? ImageEncoding::raw : ImageEncoding::zstd) << i;
    EXPECT_EQ(image.stored_size == image.raw_size, random) << i;
    EXPECT_EQ(r.stored_image(i).size(), image.stored_size);
  }
  EXPECT_TRUE(r.verify_all_sections());
}

TEST(PackageRoundTrip, UncompressedWhenAsked) {
  WriteOptions options;
  options.compress = false;
  const Bytes file = write_ok(sample_contents(), options);
  const PackageReader r = open_ok(file);
  for (std::uint32_t i = 0; i < r.image_count(); ++i) {
    EXPECT_EQ(r.image(i).encoding, ImageEncoding::raw);
    const Result<std::vector<std::byte>> out = r.read_image(i);
    ASSERT_TRUE(out);
    EXPECT_EQ(out->size(), r.image(i).raw_size);
  }
}

TEST(PackageRoundTrip, EmptyPackageHasEverySection) {
  const Bytes file = write_ok(PackageContents{});
  const PackageReader r = open_ok(file);
  EXPECT_EQ(r.section_count(), 15u);
  EXPECT_EQ(r.kernel_count() + r.unit_count() + r.image_count() + r.target_count(), 0u);
  EXPECT_EQ(r.find_kernel("anything"), std::nullopt);
  EXPECT_TRUE(r.verify_all_sections());
}

TEST(PackageLayout, SectionsInOrderAlignedAndChecked) {
  const Bytes file = write_ok(sample_contents());
  const FileHeader h = header_of(file);
  EXPECT_EQ(std::memcmp(h.magic, k_magic.data(), 8), 0);
  EXPECT_EQ(h.header_size, 64u);
  EXPECT_EQ(h.file_size, file.size());
  EXPECT_EQ(h.flags, 0u);
  EXPECT_EQ(h.reserved, 0u);
  EXPECT_EQ(h.toc_offset + h.section_count * sizeof(TocEntry), file.size());
  EXPECT_EQ(h.header_checksum, checksum(std::span(file).first(56)));
  EXPECT_EQ(h.toc_checksum, checksum(std::span(file).subspan(h.toc_offset)));

  const std::vector<TocEntry> toc = toc_of(file);
  ASSERT_EQ(toc.size(), 15u);
  std::uint64_t end = sizeof(FileHeader);
  // The tables in kind order, then KERNEL_TARGETS, UNIT_SOURCES, NAME_INDEX, BLOBS, and after it
  // INDEX_PAGES, whose pages cover everything before BLOBS.
  const std::vector<std::uint32_t> order = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 13, 18, 11, 19};
  for (std::uint32_t i = 0; i < toc.size(); ++i) {
    EXPECT_EQ(toc[i].kind, order[i]) << "sections are written in the documented order, BLOBS then INDEX_PAGES last";
    EXPECT_EQ(toc[i].offset % 16, 0u);
    EXPECT_GE(toc[i].offset, end);
    EXPECT_LT(toc[i].offset - end, 16u) << "only alignment padding between sections";
    for (std::uint64_t at = end; at < toc[i].offset; ++at) {
      EXPECT_EQ(file[at], std::byte{0});
    }
    end = toc[i].offset + toc[i].size;
    EXPECT_EQ(toc[i].checksum, checksum(std::span(file).subspan(toc[i].offset, toc[i].size)));
    const bool blobs = toc[i].kind == static_cast<std::uint32_t>(SectionKind::blobs);
    EXPECT_EQ(toc[i].flags, blobs ? std::uint32_t{k_section_verify_lazily} : 0u);
  }
  EXPECT_LE(end, h.toc_offset);

  // Every image starts 16-byte aligned inside BLOBS; reserved fields are zero.
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(get_record<ImageRecord>(file, SectionKind::images, i).offset % 16, 0u);
  }
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(get_record<TargetRecord>(file, SectionKind::targets, i).reserved, 0u);
  }
}

TEST(PackageLayout, StringTableStartsWithNulAndHoldsEachStringOnce) {
  const Bytes file = write_ok(sample_contents());
  const TocEntry strings = section_of(file, SectionKind::strings);
  const std::string table(reinterpret_cast<const char*>(file.data()) + strings.offset,
                          strings.size);
  ASSERT_FALSE(table.empty());
  EXPECT_EQ(table.front(), '\0');
  EXPECT_EQ(table.back(), '\0');
  std::multiset<std::string> seen;
  for (std::size_t at = 1; at < table.size(); at = table.find('\0', at) + 1) {
    seen.insert(table.substr(at, table.find('\0', at) - at));
  }
  for (const std::string& s : seen) {
    EXPECT_EQ(seen.count(s), 1u) << s;
    EXPECT_FALSE(s.empty());
  }
  EXPECT_EQ(seen.count("kernels/saxpy.cu"), 1u);  // a unit, a source and a kernel's unit share it
  EXPECT_EQ(seen.count("saxpy"), 1u);             // lowered, canonical and name share it
}

// Equal contents give equal bytes, whatever order the caller lists them in.
TEST(PackageDeterminism, ShuffledInputGivesIdenticalBytes) {
  const Bytes reference = write_ok(sample_contents());
  for (unsigned seed = 1; seed <= 8; ++seed) {
    std::mt19937 random(seed);
    PackageContents c = sample_contents();
    std::shuffle(c.targets.begin(), c.targets.end(), random);
    std::shuffle(c.units.begin(), c.units.end(), random);
    for (PackageUnit& u : c.units) {
      std::shuffle(u.images.begin(), u.images.end(), random);
    }
    std::shuffle(c.kernels.begin(), c.kernels.end(), random);
    for (PackageKernel& k : c.kernels) {
      std::shuffle(k.names.begin(), k.names.end(), random);
    }
    std::shuffle(c.variables.begin(), c.variables.end(), random);
    std::shuffle(c.sources.begin(), c.sources.end(), random);
    std::shuffle(c.metadata.begin(), c.metadata.end(), random);
    EXPECT_EQ(write_ok(c), reference) << "seed " << seed;
  }
}

TEST(PackageDeterminism, RepeatsThatMeanNothingChangeNothing) {
  const Bytes reference = write_ok(sample_contents());
  PackageContents c = sample_contents();
  c.targets.push_back("sm_80");
  c.kernels[0].names.push_back("scale<float>");  // its own canonical name again
  c.kernels[0].names.push_back("scale_f32 ");    // an alias spelled another way
  c.sources.push_back(c.sources[3]);
  c.metadata.push_back(c.metadata[1]);
  EXPECT_EQ(write_ok(c), reference);
}

}  // namespace
}  // namespace kiln::format::testing
