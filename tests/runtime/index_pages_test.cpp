// An index read by pages (INDEX_PAGES; docs/runtime.md, "Large indexes"): opening reads
// the header, the TOC and INDEX_PAGES; a lookup reads and checks the pages it touches and the records
// of the kernel it finds; anything else is checked whole before it is used. What a package opened
// whole refuses at open, one read by pages refuses at the first use of what is damaged.
#include "index_pages_fixture.hpp"

#include "core/package.hpp"
#include "package_fixture.hpp"
#include "test_process.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <random>

namespace kiln::testing {
namespace {

class IndexPages : public PagedFileTest {
protected:
  // The KERNELS record `index` of `bytes`, changed by `edit`, every checksum made right again: damage
  // that only the tables' rules can find.
  static void edit_kernel(Bytes& bytes, std::uint32_t index, const std::function<void(format::KernelRecord&)>& edit) {
    edit_record(bytes, format::SectionKind::kernels, index, edit);
  }
};

TEST_F(IndexPages, OpeningReadsNoPageAndALookupReadsOnlyThoseItTouches) {
  write(paged_package());
  kiln::Package package = open_path();
  const format::IndexPageLoader* pages = pages_of(package);
  ASSERT_NE(pages, nullptr) << "read whole";
  EXPECT_EQ(pages->pages_read(), 0u);
  const std::uint32_t page_count = core_of(package).reader().index_pages().page_count;
  EXPECT_GE(page_count, 8u);
  const std::uint32_t k1234 = index_in(paged_package(), tile_name(1234));
  EXPECT_EQ(package.find_kernel(tile_name(1234)), k1234);
  const std::uint32_t after_one = pages->pages_read();
  EXPECT_GE(after_one, 3u);   // NAME_INDEX, NAMES, STRINGS at least
  EXPECT_LE(after_one, 12u);   // and the kernel's own records: KERNELS, PARAMS, UNITS, IMAGES, ...
  EXPECT_LT(after_one, page_count);
  EXPECT_EQ(package.find_kernel(tile_name(1234)), k1234);
  EXPECT_EQ(pages->pages_read(), after_one) << "a page is read once";
  EXPECT_EQ(format::testing::status_of(pages->failure()), KILN_STATUS_SUCCESS);
}

TEST_F(IndexPages, FindsWhatAPackageReadWholeFinds) {
  const Bytes bytes = paged_package();
  write(bytes);
  kiln::Package paged = open_path();
  ASSERT_NE(pages_of(paged), nullptr);
  kiln::Package whole = open(bytes);
  ASSERT_EQ(pages_of(whole), nullptr);
  std::vector<std::uint32_t> order(k_paged_kernels);
  for (std::uint32_t i = 0; i < k_paged_kernels; ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937(3));
  for (const std::uint32_t i : order) {
    const std::size_t k = whole.find_kernel(tile_name(i));
    ASSERT_EQ(paged.find_kernel(tile_name(i)), k);
    ASSERT_STREQ(kiln_package_kernel_lowered_name(paged.get(), k), kiln_package_kernel_lowered_name(whole.get(), k));
  }
  EXPECT_EQ(image_key(paged.image_for_arch(tile_name(777), 90).data), image_text("unit_7.cu", "sm_90"));
  EXPECT_EQ(image_key(paged.image_for_arch(tile_name(777), 120).data), image_key(whole.image_for_arch(tile_name(777), 120).data));
  EXPECT_EQ(paged.kernel_names(), whole.kernel_names());
  EXPECT_EQ(paged.targets(), whole.targets());
  std::string missing = error_of([&] { paged.find_kernel("ops::tile<1, 99999>"); }, KILN_STATUS_KERNEL_NOT_FOUND);
  missing.replace(missing.find(m_path.string()), m_path.string().size(), "app.kiln");
  EXPECT_EQ(missing, error_of([&] { whole.find_kernel("ops::tile<1, 99999>"); }, KILN_STATUS_KERNEL_NOT_FOUND));
}

TEST_F(IndexPages, AKernelWithADamagedRecordFailsAtItsFirstUseNotAtOpen) {
  Bytes bytes = paged_package();
  const std::uint32_t damaged = index_in(bytes, tile_name(1500));
  edit_kernel(bytes, damaged, [](format::KernelRecord& r) { r.unit = 9999; });
  write(bytes);
  reading("0");
  const std::string at_open = error_of([&] { open_path(); }, KILN_STATUS_CORRUPT);
  EXPECT_EQ(at_open, m_path.string() + ": KERNELS record " + std::to_string(damaged) +
                         ": unit 9999 is out of range (20 UNITS records)");
  reading("1");
  kiln::Package package = open_path();
  EXPECT_EQ(package.find_kernel(tile_name(3)), index_in(paged_package(), tile_name(3)));
  EXPECT_EQ(image_key(package.image_for_arch(tile_name(3), 90).data), image_text("unit_0.cu", "sm_90"));
  EXPECT_EQ(error_of([&] { package.find_kernel(tile_name(1500)); }, KILN_STATUS_CORRUPT), at_open);
  EXPECT_EQ(error_of([&] { package.image_for_arch(tile_name(1500), 90); }, KILN_STATUS_CORRUPT), at_open);
  EXPECT_EQ(kiln_package_kernel_name(package.get(), damaged), nullptr);
  // A name it does not hold is looked for only after the whole index is checked, as at open.
  EXPECT_EQ(error_of([&] { package.find_kernel("ops::nothing"); }, KILN_STATUS_CORRUPT), at_open);
  EXPECT_EQ(error_of([&] { package.preload(); }, KILN_STATUS_CORRUPT), at_open);
  EXPECT_EQ(package.find_kernel(tile_name(3)), index_in(paged_package(), tile_name(3))) << "a kernel checked before still serves";
}

TEST_F(IndexPages, EachRuleOfAKernelsRecordsIsCheckedAtFirstUse) {
  struct Case {
    std::function<void(Bytes&)> damage;
    std::string message;
    std::uint32_t kernel = 250;   // in unit_2.cu
  };
  const std::uint32_t k250 = index_in(paged_package(), tile_name(250));
  const std::string record = "KERNELS record " + std::to_string(k250) + ": ";
  const auto kernel = [&](std::function<void(format::KernelRecord&)> edit) {
    return [edit, k250](Bytes& bytes) { edit_kernel(bytes, k250, edit); };
  };
  const std::vector<Case> cases = {
      {kernel([](format::KernelRecord& r) { r.first_param = 1u << 30; }),
       record + "parameters [1073741824, +2) lie outside PARAMS (4000 records)"},
      {kernel([](format::KernelRecord& r) { r.lowered_name.length += 1; }),
       record + "lowered_name (offset "},
      {kernel([](format::KernelRecord& r) { r.canonical_name.offset = 1u << 31; }),
       record + "canonical_name (offset 2147483648, length "},
      {kernel([](format::KernelRecord& r) { r.flags |= format::k_kernel_variant; }),
       "is flagged as a variant kernel, but its lowered name is not '<variant>/<symbol>'"},
      {[](Bytes& bytes) {
         const format::TocEntry images = format::testing::section_of(bytes, format::SectionKind::images);
         format::ImageRecord image;   // unit_0.cu's first image (UNITS is sorted by name)
         std::memcpy(&image, bytes.data() + images.offset, sizeof image);
         image.offset += 8;
         std::memcpy(bytes.data() + images.offset, &image, sizeof image);
         format::testing::reseal(bytes);
       },
       "IMAGES record 0: offset ", 50},
  };
  for (const Case& c : cases) {
    Bytes bytes = paged_package();
    c.damage(bytes);
    write(bytes);
    kiln::Package package = open_path();
    EXPECT_EQ(package.find_kernel(tile_name(1905)), index_in(paged_package(), tile_name(1905)));
    const std::string message = error_of([&] { package.image_for_arch(tile_name(c.kernel), 90); }, KILN_STATUS_CORRUPT);
    EXPECT_NE(message.find(c.message), std::string::npos) << c.message << " | " << message;
    EXPECT_EQ(message.rfind(m_path.string() + ": ", 0), 0u) << message;
  }
}

TEST_F(IndexPages, APageThatFailsItsChecksumIsCorruptWhenFirstRead) {
  Bytes bytes = paged_package();
  const format::TocEntry names = format::testing::section_of(bytes, format::SectionKind::names);
  bytes[names.offset + names.size / 2] ^= std::byte{0x40};   // no checksum made right
  write(bytes);
  reading("0");
  EXPECT_EQ(error_of([&] { open_path(); }, KILN_STATUS_CORRUPT), m_path.string() + ": NAMES section checksum mismatch");
  reading("1");
  kiln::Package package = open_path();
  const std::string message = error_of([&] { package.targets(); }, KILN_STATUS_CORRUPT);   // checks the whole index
  EXPECT_EQ(message.rfind(m_path.string() + ": INDEX_PAGES page ", 0), 0u) << message;
  EXPECT_NE(message.find(") checksum mismatch"), std::string::npos) << message;
  EXPECT_EQ(format::testing::status_of(pages_of(package)->failure()), KILN_STATUS_CORRUPT);
}

TEST_F(IndexPages, AFileChangedAfterOpenIsAnErrorAtTheFirstPageReadNotACrash) {
  write(paged_package());
  kiln::Package package = open_path();
  std::filesystem::resize_file(m_path, 100);
  const std::string message = error_of([&] { package.find_kernel(tile_name(10)); }, KILN_STATUS_IO_ERROR);
  EXPECT_NE(message.find(m_path.string() + "' has changed since it was opened"), std::string::npos) << message;
  EXPECT_EQ(format::testing::status_of(pages_of(package)->failure()), KILN_STATUS_IO_ERROR);
}

// Pages are read without asking the file's status first; a page whose bytes changed fails its
// checksum, and then the status names the cause.
TEST_F(IndexPages, AFileRewrittenInPlaceAfterOpenIsAnErrorNamingTheChangeNotCorrupt) {
  Bytes bytes = paged_package();
  write(bytes);
  kiln::Package package = open_path();
  const auto written = std::filesystem::last_write_time(m_path);
  const format::TocEntry names = format::testing::section_of(bytes, format::SectionKind::name_index);
  for (std::size_t i = 0; i < names.size; ++i) bytes[names.offset + i] ^= std::byte{0x5A};   // every slot
  write(bytes);   // the same size, other bytes
  std::filesystem::last_write_time(m_path, written + std::chrono::hours(1));   // whatever the clock's grain
  const std::string message = error_of([&] { package.find_kernel(tile_name(10)); }, KILN_STATUS_IO_ERROR);
  EXPECT_NE(message.find(m_path.string() + "' has changed since it was opened"), std::string::npos) << message;
  EXPECT_EQ(format::testing::status_of(pages_of(package)->failure()), KILN_STATUS_IO_ERROR);
}

TEST_F(IndexPages, SmallIndexesAreReadWholeLargeOnesByPages) {
  kiln::test::unset_variable("KILN_INDEX_PAGES");
  write(single_kernel_package({"sm_90"}));
  EXPECT_EQ(pages_of(open_path()), nullptr) << "an index under 64 KiB is read whole";
  write(paged_package());
  EXPECT_NE(pages_of(open_path()), nullptr) << "a larger one by pages";
  reading("0");
  EXPECT_EQ(pages_of(open_path()), nullptr) << "KILN_INDEX_PAGES=0 reads every index whole";
  // A file without INDEX_PAGES is not a package of this format, whichever way it is read.
  write(format::testing::without_section(paged_package(), format::SectionKind::index_pages));
  EXPECT_NE(refused_whole().find("no INDEX_PAGES section"), std::string::npos);
  EXPECT_NE(error_of([&] { open_path(); }, KILN_STATUS_CORRUPT).find("no INDEX_PAGES section"), std::string::npos);
}

// A file of larger pages (16 KiB, which the first writer of index pages used; the largest allowed)
// reads by pages all the same: a lookup reads fewer, larger pages.
TEST_F(IndexPages, FilesWithOtherPageSizesAreReadByPagesAndFindTheSameKernels) {
  kiln::Package whole = open(paged_package());
  for (const std::uint32_t size : {16384u, format::k_index_page_max}) {
    write(paged_package(size));
    kiln::Package package = open_path();
    ASSERT_NE(pages_of(package), nullptr) << size;
    const format::IndexPagesView& view = core_of(package).reader().index_pages();
    EXPECT_EQ(view.page_size, size);
    EXPECT_EQ(package.find_kernel(tile_name(1234)), whole.find_kernel(tile_name(1234))) << size;
    EXPECT_GE(pages_of(package)->pages_read(), 1u);
    EXPECT_LE(pages_of(package)->pages_read(), view.page_count);
    for (std::uint32_t i = 0; i < k_paged_kernels; i += 37) EXPECT_EQ(package.find_kernel(tile_name(i)), whole.find_kernel(tile_name(i))) << size;
    EXPECT_EQ(package.targets(), whole.targets()) << size;   // the whole index, checked
    EXPECT_EQ(format::testing::status_of(pages_of(package)->failure()), KILN_STATUS_SUCCESS) << size;
  }
}

TEST_F(IndexPages, ManyThreadsLookingUpAtOnceReadEachPageOnce) {
  write(paged_package());
  kiln::Package package = open_path();
  kiln::Package whole = open(paged_package());
  std::vector<std::size_t> expected(k_paged_kernels);
  for (std::uint32_t i = 0; i < k_paged_kernels; ++i) expected[i] = whole.find_kernel(tile_name(i));
  const int failures = run_concurrently(8, 1, [&](int thread, int) {
    for (std::uint32_t i = 0; i < k_paged_kernels; ++i) {
      const std::uint32_t k = (i * 7 + static_cast<std::uint32_t>(thread) * 251) % k_paged_kernels;
      if (package.find_kernel(tile_name(k)) != expected[k]) throw kiln::Error(KILN_STATUS_INTERNAL_ERROR, "wrong kernel");
    }
  });
  EXPECT_EQ(failures, 0);
  const std::uint32_t read = pages_of(package)->pages_read();
  EXPECT_LE(read, core_of(package).reader().index_pages().page_count);
  package.targets();   // checks the whole index: reads the pages no lookup touched
  EXPECT_EQ(pages_of(package)->pages_read(), core_of(package).reader().index_pages().page_count);
}

}  // namespace
}  // namespace kiln::testing
