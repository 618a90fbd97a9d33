// Damaged files: every truncation, a flipped byte anywhere, and edits that keep every checksum
// valid (a hostile file). None may crash or read out of bounds (run under ASan/UBSan), and every
// damaged file must be refused with a named error, at open or, for image bytes, at load.
#include "package_fixture.hpp"
#include "reseal.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace kiln::format::testing {
namespace {

TEST(PackageDamage, EveryTruncationIsRefusedAsTruncated) {
  const Bytes file = write_ok(sample_contents());
  for (std::size_t length = 0; length < file.size(); ++length) {
    const Bytes cut(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(length));
    PackageReader reader;
    const Status e = reader.open(cut, "app.kiln");
    ASSERT_EQ(status_of(e), KILN_STATUS_TRUNCATED) << length << ": " << text_of(e);
    ASSERT_TRUE(text_of(e).starts_with("app.kiln: the file ")) << text_of(e);
    ASSERT_EQ(reader.kernel_count(), 0u);  // a failed open leaves the reader empty
  }
}

// Which images' stored bytes contain file offset `at`, if any.
std::vector<std::uint32_t> images_at(const PackageReader& r, const Bytes& file, std::size_t at) {
  const TocEntry blobs = section_of(file, SectionKind::blobs);
  std::vector<std::uint32_t> hit;
  for (std::uint32_t i = 0; i < r.image_count(); ++i) {
    const std::uint64_t first =
        blobs.offset + get_record<ImageRecord>(file, SectionKind::images, i).offset;
    if (at >= first && at < first + r.image(i).stored_size) {
      hit.push_back(i);
    }
  }
  return hit;
}

// Flips every byte of the file in turn: header, each section, the padding and the TOC.
TEST(PackageDamage, EveryFlippedByteIsRefused) {
  const Bytes file = write_ok(sample_contents());
  const PackageReader pristine = open_ok(file);
  const FileHeader header = header_of(file);
  std::map<std::uint32_t, int> flips_per_section;
  int refused_at_open = 0;
  for (std::size_t at = 0; at < file.size(); ++at) {
    Bytes damaged = file;
    damaged[at] ^= std::byte{0xff};
    PackageReader reader;
    const Status e = reader.open(damaged, "app.kiln");
    const TocEntry* section = nullptr;
    const std::vector<TocEntry> toc = toc_of(file);
    for (const TocEntry& entry : toc) {
      if (at >= entry.offset && at < entry.offset + entry.size) {
        section = &entry;
        ++flips_per_section[entry.kind];
      }
    }
    if (!e) {
      ++refused_at_open;
      ASSERT_TRUE(text_of(e).starts_with("app.kiln: ")) << text_of(e);
      if (at < header.header_size || at >= header.toc_offset) {
        ASSERT_NE(status_of(e), KILN_STATUS_TRUNCATED) << at;
      }
      continue;
    }
    // Only BLOBS is verified lazily: its bytes fail at image load and in verify_all_sections.
    ASSERT_NE(section, nullptr) << "flip at " << at << " (padding) was not noticed";
    ASSERT_EQ(section->kind, static_cast<std::uint32_t>(SectionKind::blobs)) << "flip at " << at;
    const Status verify = reader.verify_all_sections();
    EXPECT_EQ(status_of(verify), KILN_STATUS_CORRUPT) << at;
    EXPECT_EQ(text_of(verify), "app.kiln: BLOBS section checksum mismatch");
    for (const std::uint32_t image : images_at(pristine, file, at)) {
      const Result<std::vector<std::byte>> load = reader.read_image(image);
      ASSERT_EQ(status_of(load), KILN_STATUS_IMAGE_CORRUPT) << "flip at " << at;
      const std::string prefix = "app.kiln: image " +
                                 std::string(reader.unit(reader.image(image).unit).source) + " [" +
                                 std::string(reader.target(reader.image(image).target).name) + "] ";
      EXPECT_TRUE(text_of(load).starts_with(prefix)) << text_of(load);
    }
  }
  for (std::uint32_t kind = 1; kind <= 11; ++kind) {
    EXPECT_GT(flips_per_section[kind], 0) << "section kind " << kind << " was never hit";
  }
  // Every byte outside BLOBS is covered by a checksum or must be zero padding.
  EXPECT_EQ(refused_at_open,
            static_cast<int>(file.size() - section_of(file, SectionKind::blobs).size));
}

// A checksum mismatch names its section.
TEST(PackageDamage, ChecksumMismatchNamesTheSection) {
  const Bytes file = write_ok(sample_contents());
  const std::map<SectionKind, std::string> expected = {{SectionKind::strings, "STRINGS"},
                                                       {SectionKind::kernels, "KERNELS"},
                                                       {SectionKind::params, "PARAMS"},
                                                       {SectionKind::metadata, "METADATA"}};
  for (const auto& [kind, name] : expected) {
    Bytes damaged = file;
    damaged[section_of(file, kind).offset + 1] ^= std::byte{1};
    PackageReader reader;
    const Status e = reader.open(damaged, "app.kiln");
    EXPECT_EQ(status_of(e), KILN_STATUS_CORRUPT);
    EXPECT_EQ(text_of(e), "app.kiln: " + name + " section checksum mismatch");
  }
  Bytes damaged = file;
  damaged[header_of(file).toc_offset + 3] ^= std::byte{1};
  PackageReader reader;
  EXPECT_EQ(text_of(reader.open(damaged, "app.kiln")), "app.kiln: TOC checksum mismatch");
  damaged = file;
  damaged[20] ^= std::byte{1};
  EXPECT_EQ(text_of(reader.open(damaged, "app.kiln")), "app.kiln: header checksum mismatch");
}

// Exercises every accessor of an opened reader, as a runtime or `kiln inspect` would.
void use_everything(const PackageReader& r) {
  std::size_t total = 0;
  for (std::uint32_t i = 0; i < r.target_count(); ++i) total += r.target(i).name.size();
  for (std::uint32_t i = 0; i < r.unit_count(); ++i) total += r.unit(i).source.size();
  for (std::uint32_t i = 0; i < r.kernel_count(); ++i) {
    const KernelView k = r.kernel(i);
    total += k.lowered_name.size() + k.canonical_name.size();
    for (std::uint32_t p = 0; p < k.param_count; ++p) total += k.param(p).size;
    total += r.find_kernel(k.lowered_name).value_or(0);
  }
  for (std::uint32_t i = 0; i < r.name_count(); ++i)
    total += r.find_kernel(r.name(i).name).value_or(0);
  for (std::uint32_t i = 0; i < r.variable_count(); ++i) {
    total += r.find_variable(r.variable(i).name).value_or(0) + r.variable(i).lowered_name.size();
  }
  for (std::uint32_t i = 0; i < r.source_count(); ++i) total += r.source(i).path.size();
  for (std::uint32_t i = 0; i < r.metadata_count(); ++i) {
    total += r.metadata_value(r.metadata(i).key).value_or("").size();
  }
  for (std::uint32_t i = 0; i < r.image_count(); ++i) {
    const Result<std::vector<std::byte>> e = r.read_image(i);
    EXPECT_TRUE(e.ok() || status_of(e) == KILN_STATUS_IMAGE_CORRUPT) << text_of(e);
    total += (e.ok() ? e->size() : 0) + r.stored_image(i).size();
  }
  for (std::uint32_t i = 0; i < r.section_count(); ++i) total += r.section(i).size;
  EXPECT_TRUE(r.verify_all_sections());  // the file was resealed
  EXPECT_GT(total, 0u);
}

// Hostile files: a byte changed anywhere and every checksum recomputed, so only the reader's
// structural checks stand between the bytes and the accessors.
TEST(PackageDamage, ResealedEditsNeverCrash) {
  const Bytes file = write_ok(sample_contents());
  std::map<kiln_status, int> outcomes;
  for (std::size_t at = 0; at < file.size(); ++at) {
    const std::byte original = file[at];
    for (const std::byte value :
         {std::byte{0}, std::byte{0xff}, original ^ std::byte{1}, original ^ std::byte{0x80}}) {
      if (value == original) {
        continue;
      }
      Bytes edited = file;
      edited[at] = value;
      reseal(edited);
      PackageReader reader;
      const Status e = reader.open(edited, "app.kiln");
      ++outcomes[status_of(e)];
      if (!e) {
        ASSERT_TRUE(text_of(e).starts_with("app.kiln: ")) << text_of(e);
        ASSERT_GT(text_of(e).size(), 12u);
      } else {
        use_everything(reader);
      }
    }
  }
  // Both outcomes occur: many edits break an index or order, many (text, hashes, image bytes)
  // don't.
  EXPECT_GT(outcomes[KILN_STATUS_CORRUPT], 100);
  EXPECT_GT(outcomes[KILN_STATUS_SUCCESS], 100);
}

// A caller that checked the bytes itself (the store's checksum of a direct record) opens with
// Checksums::verified_by_caller: the content checksums are not computed again, and nothing else
// changes. Once an edit is resealed only the structure decides, so both opens must agree on every
// edited file, to the message, and on every image but one whose own checksum (in its IMAGES record,
// which reseal leaves as it was) no longer matches its bytes: that one is content, the next test's.
TEST(PackageDamage, ACallerVerifiedOpenRefusesWhatACheckedOpenRefusesOfASealedFile) {
  const Bytes file = write_ok(sample_contents());
  int compared = 0;
  for (std::size_t at = 0; at < file.size(); ++at) {
    Bytes edited = file;
    edited[at] ^= std::byte{0x80};
    reseal(edited);
    PackageReader checked;
    PackageReader verified;
    const Status by_reader = checked.open(edited, "app.kiln");
    const Status by_caller = verified.open(edited, "app.kiln", Checksums::verified_by_caller);
    ASSERT_EQ(status_of(by_caller), status_of(by_reader)) << "edit at " << at << ": " << text_of(by_reader);
    ASSERT_EQ(text_of(by_caller), text_of(by_reader)) << "edit at " << at;
    if (!by_reader) continue;
    ASSERT_EQ(verified.kernel_count(), checked.kernel_count());
    for (std::uint32_t i = 0; i < checked.image_count(); ++i) {
      const Result<std::vector<std::byte>> a = checked.read_image(i);
      const Result<std::vector<std::byte>> b = verified.read_image(i);
      if (!a && b) {
        ASSERT_TRUE(text_of(a).ends_with("fails its checksum")) << "edit at " << at << ": " << text_of(a);
        continue;
      }
      ASSERT_EQ(status_of(b), status_of(a)) << "edit at " << at << ", image " << i << ": " << text_of(a);
      if (a) {
        ASSERT_EQ(*b, *a);
      }
    }
    ++compared;
  }
  EXPECT_GT(compared, 100);
}

// What the caller's word covers: the content checksums of the sections and of each image at its
// use. The header's and the TOC's checksums are checked either way (they say where everything lies).
TEST(PackageDamage, ACallerVerifiedOpenTakesOnlyTheContentOnTheCallersWord) {
  const Bytes file = write_ok(sample_contents());
  const PackageReader pristine = open_ok(file);
  const TocEntry blobs = section_of(file, SectionKind::blobs);
  std::uint32_t raw = pristine.image_count();
  for (std::uint32_t i = 0; i < pristine.image_count(); ++i) {
    if (pristine.image(i).encoding == ImageEncoding::raw) raw = i;
  }
  ASSERT_LT(raw, pristine.image_count()) << "the sample has a raw image";
  const std::uint64_t at = blobs.offset + get_record<ImageRecord>(file, SectionKind::images, raw).offset + 1;
  Bytes damaged = file;
  damaged[at] ^= std::byte{1};

  PackageReader checked;
  ASSERT_TRUE(checked.open(damaged, "app.kiln"));   // BLOBS is verified at use
  EXPECT_EQ(status_of(checked.read_image(raw)), KILN_STATUS_IMAGE_CORRUPT);
  PackageReader verified;
  ASSERT_TRUE(verified.open(damaged, "app.kiln", Checksums::verified_by_caller));
  const Result<std::vector<std::byte>> taken = verified.read_image(raw);
  ASSERT_TRUE(taken) << text_of(taken);
  const Result<std::vector<std::byte>> original = pristine.read_image(raw);
  ASSERT_TRUE(original);
  ASSERT_EQ(taken->size(), original->size());
  EXPECT_EQ((*taken)[1], (*original)[1] ^ std::byte{1});

  // A section read at open: refused by its checksum only when the reader checks it.
  damaged = file;
  damaged[section_of(file, SectionKind::metadata).offset + 1] ^= std::byte{1};
  EXPECT_EQ(text_of(checked.open(damaged, "app.kiln")), "app.kiln: METADATA section checksum mismatch");
  EXPECT_NE(text_of(verified.open(damaged, "app.kiln", Checksums::verified_by_caller)),
            "app.kiln: METADATA section checksum mismatch");
  damaged = file;
  damaged[header_of(file).toc_offset + 3] ^= std::byte{1};
  EXPECT_EQ(text_of(verified.open(damaged, "app.kiln", Checksums::verified_by_caller)),
            "app.kiln: TOC checksum mismatch");
  damaged = file;
  damaged[20] ^= std::byte{1};
  EXPECT_EQ(text_of(verified.open(damaged, "app.kiln", Checksums::verified_by_caller)),
            "app.kiln: header checksum mismatch");
}

}  // namespace
}  // namespace kiln::format::testing
