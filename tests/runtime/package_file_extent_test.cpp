// How much of a file an open reads: a file whose header the reader refuses (not a package, another
// version, a bad checksum) is read no further than its header, and a package padded past its header's
// file size no further than the package. Each file here is 1 GiB, sparse: reading it whole would take
// a second and a gigabyte of memory (core/package_source.cpp).
#include "runtime_fixture.hpp"
#include "reseal.hpp"
#include "test_process.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

namespace kiln::testing {
namespace {

namespace fs = std::filesystem;

constexpr std::uintmax_t k_file_size = std::uintmax_t{1} << 30;
// What an open may add to the process's peak resident memory: 64 MiB. Reading the file whole adds 1 GiB.
constexpr long k_growth_bound_kib = 64 << 10;

// The process's peak resident memory (VmHWM) in KiB, or -1 where /proc does not show it.
long peak_kib() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

// Lowers the peak to the present resident memory (Linux 4.0 and later), so that what one open adds is
// seen whatever an earlier test in the process touched.
bool reset_peak() { return static_cast<bool>(std::ofstream("/proc/self/clear_refs") << "5"); }

class PackageFileExtent : public RuntimeTest {
protected:
  void SetUp() override {
#if defined(_WIN32)
    GTEST_SKIP() << "the peak resident memory is read and reset through Linux's /proc/self";
#endif
    RuntimeTest::SetUp();
    m_path = fs::temp_directory_path() / ("kiln_extent_" + std::to_string(kiln::test::process_id()) + ".kiln");
  }
  void TearDown() override {
    if (m_path.empty()) return;   // skipped
    fs::remove(m_path);
    RuntimeTest::TearDown();
  }
  // `bytes`, then zeros (a hole) up to k_file_size.
  void write_padded(const Bytes& bytes) {
    std::ofstream(m_path, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    fs::resize_file(m_path, k_file_size);
  }
  // The status of opening m_path, and how much it raised the peak resident memory (KiB).
  kiln_status open(long& growth_kib) {
    if (!reset_peak() || peak_kib() < 0) ADD_FAILURE() << "/proc/self cannot show the peak resident memory";
    const long before = peak_kib();
    kiln_package* package = nullptr;
    const kiln_status status = kiln_package_open_file(m_path.string().c_str(), &package);
    growth_kib = peak_kib() - before;
    if (package) kiln_package_destroy(package);
    return status;
  }
  fs::path m_path;
};

TEST_F(PackageFileExtent, AFileWhoseHeaderIsRefusedIsReadNoFurther) {
  const Bytes package = single_kernel_package({"sm_90"});
  Bytes not_a_package(4096, std::byte{'x'});
  Bytes other_major = package;
  other_major[8] = std::byte{9};   // version_major, after the 8 bytes of magic
  Bytes bad_checksum = package;
  bad_checksum[50] ^= std::byte{1};   // the reserved field, inside the span the checksum covers
  const struct {
    const char* what;
    const Bytes& bytes;
    kiln_status status;
  } cases[] = {{"not a package", not_a_package, KILN_STATUS_NOT_A_PACKAGE},
               {"another major version", other_major, KILN_STATUS_UNSUPPORTED_VERSION},
               {"a header checksum that fails", bad_checksum, KILN_STATUS_CORRUPT}};
  for (const auto& c : cases) {
    write_padded(c.bytes);
    long growth = 0;
    EXPECT_EQ(open(growth), c.status) << c.what << ": " << kiln_last_error();
    EXPECT_LT(growth, k_growth_bound_kib) << c.what << ": the open read " << growth << " KiB";
  }
}

TEST_F(PackageFileExtent, APackagePaddedPastItsSizeIsReadNoFurtherThanThePackage) {
  write_padded(single_kernel_package({"sm_90"}));
  long growth = 0;
  ASSERT_EQ(open(growth), KILN_STATUS_SUCCESS) << kiln_last_error();
  EXPECT_LT(growth, k_growth_bound_kib) << "the open read " << growth << " KiB";
  kiln::Package package = kiln::Package::open_file(m_path.string().c_str());
  EXPECT_EQ(package.image_for_arch("k", 90).target, std::string("sm_90"));
}

// How many read system calls this process has made (/proc/self/io's syscr), or -1 where /proc does
// not show it.
long reads_made() {
  std::ifstream io("/proc/self/io");
  for (std::string line; std::getline(io, line);)
    if (line.rfind("syscr:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

// The read system calls opening `path` makes, less those of asking /proc/self/io itself: the fewest
// of three opens, so that a read another thread of the process makes (a sanitizer's) is not counted.
long reads_of_one_open(const fs::path& path);
long reads_of_open(const fs::path& path) {
  long fewest = reads_of_one_open(path);
  for (int i = 0; i < 2 && fewest >= 0; ++i) fewest = std::min(fewest, reads_of_one_open(path));
  return fewest;
}

long reads_of_one_open(const fs::path& path) {
  const long first = reads_made();
  const long second = reads_made();
  if (first < 0) {
    ADD_FAILURE() << "/proc/self/io cannot show this process's read system calls";
    return -1;
  }
  const long asking = second - first;
  kiln_package* package = nullptr;
  const kiln_status status = kiln_package_open_file(path.string().c_str(), &package);
  const long after = reads_made();
  EXPECT_EQ(status, KILN_STATUS_SUCCESS) << kiln_last_error();
  if (package) kiln_package_destroy(package);
  return after - second - asking;
}

// An open reads whole pages where that saves a read (core/package_source.cpp): a package of one page
// in one read; a larger one in its first page (the header and the index's start), the page the TOC
// starts in through the TOC (the sections after BLOBS lie there), and what of the index lies past
// the first page. Before, every part was a read of its own: four for either package.
TEST_F(PackageFileExtent, APackageIsReadInTheFewestReadsItsLayoutAllows) {
  const Bytes small = single_kernel_package({"sm_90"});
  ASSERT_LE(small.size(), 4096u);
  std::ofstream(m_path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(small.data()), static_cast<std::streamsize>(small.size()));
  EXPECT_EQ(reads_of_open(m_path), 1) << "a package of " << small.size() << " bytes";

  PackageSpec spec;
  spec.units = {{"ops.cu", {"sm_80", "sm_90"}}};
  spec.kernels = {KernelSpec("k", "ops.cu")};
  spec.metadata = {{"test.padding", std::string(12 << 10, 'p')}};   // an index past the first page
  const Bytes larger = build_package(spec);
  std::ofstream(m_path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(larger.data()), static_cast<std::streamsize>(larger.size()));
  EXPECT_EQ(reads_of_open(m_path), 3) << "a package of " << larger.size() << " bytes";
  kiln::Package package = kiln::Package::open_file(m_path.string().c_str());
  EXPECT_EQ(package.image_for_arch("k", 90).target, std::string("sm_90"));
}

// The open reads a file in pages and skips what those pages hold (core/package_source.cpp): a range it
// failed to read would leave bytes the reader then refuses or misreads. So every file an edit can
// make, resealed so that its checksums hold (a TOC moved into the first page or into the index, a
// section past the TOC, an index of another size), must open from the file exactly as from memory.
TEST_F(PackageFileExtent, AFileOpensAsTheSameBytesInMemoryDoWhateverItsLayout) {
  PackageSpec spec;
  spec.units = {{"ops.cu", {"sm_80", "sm_90"}}};
  spec.kernels = {KernelSpec("k", "ops.cu")};
  spec.metadata = {{"test.padding", std::string(6 << 10, 'p')}};   // an index past the first page
  const Bytes sample = build_package(spec);
  ASSERT_GT(sample.size(), 4096u);
  int compared = 0, opened = 0;
  for (std::size_t at = 0; at < sample.size(); at += 7) {
    Bytes edited = sample;
    edited[at] ^= std::byte{0x5a};
    format::testing::reseal(edited);
    std::ofstream(m_path, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(edited.data()), static_cast<std::streamsize>(edited.size()));
    kiln_package* from_file = nullptr;
    const kiln_status file_status = kiln_package_open_file(m_path.string().c_str(), &from_file);
    kiln_package* from_memory = nullptr;
    const kiln_status memory_status =
        kiln_package_open_memory(edited.data(), edited.size(), KILN_OPEN_COPY, nullptr, &from_memory);
    EXPECT_EQ(file_status, memory_status) << "byte " << at << " edited: " << kiln_last_error();
    if (from_file && from_memory) {
      ++opened;
      EXPECT_EQ(kiln_package_kernel_count(from_file), kiln_package_kernel_count(from_memory)) << "byte " << at;
    }
    if (from_file) kiln_package_destroy(from_file);
    if (from_memory) kiln_package_destroy(from_memory);
    ++compared;
  }
  EXPECT_GT(compared, 500);
  EXPECT_GT(opened, 10);   // edits the reader accepts (padding, names) are among them
}

}  // namespace
}  // namespace kiln::testing
