// INDEX_PAGES: written after BLOBS covering [header_size, BLOBS), checked whole by a reader that
// opens the package whole; its shape checked by one that reads the index by pages.
#include "package_fixture.hpp"

#include "format/checksum.hpp"
#include "format/index_pages.hpp"

#include <gtest/gtest.h>

#include <cstring>

namespace kiln::format::testing {
namespace {

IndexPagesHeader pages_header(const Bytes& file) {
  IndexPagesHeader header;
  std::memcpy(&header, file.data() + section_of(file, SectionKind::index_pages).offset, sizeof header);
  return header;
}

void set_pages_header(Bytes& file, const IndexPagesHeader& header) {
  std::memcpy(file.data() + section_of(file, SectionKind::index_pages).offset, &header, sizeof header);
}

TEST(IndexPagesFormat, CoverTheIndexFromTheHeaderToBlobsWithAChecksumPerPage) {
  const Bytes file = write_ok(sample_contents());
  const IndexPagesHeader header = pages_header(file);
  EXPECT_EQ(header.page_size, k_index_page_size);
  EXPECT_EQ(header.begin, sizeof(FileHeader));
  EXPECT_EQ(header.end, section_of(file, SectionKind::blobs).offset);
  EXPECT_EQ(header.page_count, (header.end - header.begin + header.page_size - 1) / header.page_size);
  EXPECT_EQ(section_of(file, SectionKind::index_pages).size, sizeof header + 8u * header.page_count);
  EXPECT_GT(section_of(file, SectionKind::index_pages).offset, section_of(file, SectionKind::blobs).offset);
  const PackageReader reader = open_ok(file);
  EXPECT_EQ(reader.index_pages().page_count, header.page_count);
  EXPECT_FALSE(reader.deferred());
}

// Readers take any page size from 4 KiB to 1 MiB (the first writer of index pages used 16 KiB);
// Kiln writes 4 KiB pages, and the others are made here from its bytes.
TEST(IndexPagesFormat, EveryPageSizeTheRuleAllowsIsRead) {
  const Bytes written = write_ok(sample_contents());
  for (const std::uint32_t size : {k_index_page_min, 16384u, k_index_page_max}) {
    const Bytes file = with_index_page_size(written, size);
    const IndexPagesHeader header = pages_header(file);
    EXPECT_EQ(header.page_size, size);
    EXPECT_EQ(header.page_count, (header.end - header.begin + size - 1) / size);
    EXPECT_EQ(open_ok(file).index_pages().page_size, size);
    PackageReader deferred;
    EXPECT_TRUE(deferred.open_deferred(file, "app.kiln")) << size;
    // The bytes are all in memory: filling a page reads nothing, and each page is still checked.
    const IndexPageLoader pages(deferred.index_pages(), file, [](std::uint64_t, std::uint64_t) { return Status(); });
    deferred.use_pages(&pages);
    EXPECT_EQ(text_of(deferred.check_all()), "") << size;
    EXPECT_EQ(pages.pages_read(), header.page_count) << size;
  }
  EXPECT_EQ(with_index_page_size(written, k_index_page_size), written) << "laid out as the writer lays it out";
}

TEST(IndexPagesFormat, AReaderOpeningWholeChecksEveryPage) {
  Bytes file = write_ok(sample_contents());
  IndexPagesHeader header = pages_header(file);
  std::uint64_t wrong = 0;
  std::memcpy(file.data() + section_of(file, SectionKind::index_pages).offset + sizeof header, &wrong, sizeof wrong);
  // Only the section checksums made right: the page's own checksum is what fails.
  Bytes sealed = file;
  reseal(sealed, /*index_pages=*/false);
  expect_corrupt(sealed, "INDEX_PAGES page 0 (bytes [64, " + std::to_string(std::min<std::uint64_t>(header.end, 64 + header.page_size)) +
                             ")) checksum mismatch");
}

TEST(IndexPagesFormat, AShapeThatDoesNotCoverTheIndexIsRefused) {
  const Bytes good = write_ok(sample_contents());
  const IndexPagesHeader header = pages_header(good);
  struct Case {
    IndexPagesHeader header;
    std::string message;
  };
  const std::string index = "[64, " + std::to_string(header.end) + ")";
  std::vector<Case> cases = {
      {{3000, header.page_count, header.begin, header.end}, "INDEX_PAGES page size 3000 is not a power of two from 4096 to 1048576"},
      {{2048, header.page_count, header.begin, header.end}, "INDEX_PAGES page size 2048 is not a power of two from 4096 to 1048576"},
      {{2 * k_index_page_max, header.page_count, header.begin, header.end},
       "INDEX_PAGES page size 2097152 is not a power of two from 4096 to 1048576"},
      {{header.page_size, header.page_count, 80, header.end},
       "INDEX_PAGES covers bytes [80, " + std::to_string(header.end) + "), not the index " + index},
      {{header.page_size, header.page_count, header.begin, header.end - 16},
       "INDEX_PAGES covers bytes [64, " + std::to_string(header.end - 16) + "), not the index " + index},
      {{header.page_size, header.page_count + 1, header.begin, header.end},
       "INDEX_PAGES holds " + std::to_string(header.page_count + 1) + " pages in " +
           std::to_string(sizeof header + 8 * header.page_count) + " bytes; the index needs " + std::to_string(header.page_count)},
  };
  for (const Case& c : cases) {
    Bytes file = good;
    set_pages_header(file, c.header);
    reseal(file, /*index_pages=*/false);   // the edited header stays as it is
    expect_corrupt(file, c.message);
    PackageReader deferred;
    const Status e = deferred.open_deferred(file, "app.kiln");
    EXPECT_EQ(text_of(e), "app.kiln: " + c.message);
  }
}

// Every file has INDEX_PAGES: one without is refused, whichever way it is read.
TEST(IndexPagesFormat, AFileWithoutThemIsRefusedWholeAndByPages) {
  const Bytes without = without_section(write_ok(sample_contents()), SectionKind::index_pages);
  expect_corrupt(without, "no INDEX_PAGES section");
  PackageReader reader;
  EXPECT_EQ(text_of(reader.open_deferred(without, "app.kiln")), "app.kiln: no INDEX_PAGES section");
}

}  // namespace
}  // namespace kiln::format::testing
