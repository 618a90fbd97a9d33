// A package file changed in place while open (truncated, or overwritten with `cp` as a deployment
// does): the runtime must neither crash (a mapped file gives SIGBUS) nor serve the new file's images
// under the old index. Either the old images or an error naming the file. Each case runs for a small
// file, which the runtime reads into the heap, and for one above 64 KiB, read into memory reserved
// for it (core/package_source.cpp).
#include "runtime_fixture.hpp"
#include "test_process.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace kiln::testing {
namespace {

namespace fs = std::filesystem;

class PackageChanges : public RuntimeTest, public ::testing::WithParamInterface<bool> {
protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    m_path = fs::temp_directory_path() / ("kiln_changes_" + std::to_string(kiln::test::process_id()) + ".kiln");
  }
  void TearDown() override {
    fs::remove(m_path);
    RuntimeTest::TearDown();
  }
  // Writes in place (same inode), as `cp` over an existing file does.
  void write(const Bytes& bytes) {
    std::ofstream(m_path, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  // With GetParam(), padded past the size the runtime reads into the heap.
  static Bytes package_for(const std::string& unit) {
    PackageSpec spec;
    spec.units = {{unit, {"sm_90"}}};
    spec.kernels = {KernelSpec("k", unit)};
    if (GetParam()) spec.metadata = {{"test.padding", std::string(80 << 10, 'p')}};
    Bytes bytes = build_package(spec);
    EXPECT_EQ(bytes.size() > (std::size_t{64} << 10), GetParam()) << bytes.size() << " bytes";
    return bytes;
  }
  // Flips a byte inside the stored image of "a.cu" (found by its text).
  static void corrupt_image(Bytes& bytes) {
    const std::string text = image_text("a.cu", "sm_90");
    const auto* begin = reinterpret_cast<const char*>(bytes.data());
    const std::string_view all(begin, bytes.size());
    const std::size_t at = all.find(text);
    ASSERT_NE(at, std::string_view::npos);
    bytes[at] ^= std::byte{0x20};
  }
  fs::path m_path;
};

TEST_P(PackageChanges, TruncatedAfterOpenIsAnErrorNotACrash) {
  write(package_for("a.cu"));
  kiln::Package package = kiln::Package::open_file(m_path.string().c_str());
  fs::resize_file(m_path, 100);
  const std::string message = error_of([&] { package.image_for_arch("k", 90); }, KILN_STATUS_IO_ERROR);
  EXPECT_NE(message.find(m_path.string()), std::string::npos) << message;
  EXPECT_NE(message.find("has changed since it was opened"), std::string::npos) << message;
}

TEST_P(PackageChanges, OverwrittenAfterOpenNeverServesTheNewImages) {
  write(package_for("a.cu"));
  kiln::Package package = kiln::Package::open_file(m_path.string().c_str());
  write(package_for("b.cu"));  // same size and layout: only the image bytes differ
  kiln_image image{};
  image.struct_size = sizeof image;
  const kiln_status status = kiln_package_select_image_for_arch(package.get(), "k", 90, 0, &image);
  if (status == KILN_STATUS_SUCCESS) {
    EXPECT_EQ(image_key(image.data), image_text("a.cu", "sm_90"));
  } else {
    EXPECT_TRUE(status == KILN_STATUS_IO_ERROR || status == KILN_STATUS_IMAGE_CORRUPT) << status;
    EXPECT_NE(std::string(kiln_last_error()).find(m_path.string()), std::string::npos) << kiln_last_error();
  }
}

// The first request for an image reads it without a stat (a syscall on every first launch): its
// checksum stands behind the bytes, and a failure is put down to the file's change when there is one.
TEST_P(PackageChanges, AChangedImageInAChangedFileNamesTheChange) {
  Bytes bytes = package_for("a.cu");
  write(bytes);
  kiln::Package package = kiln::Package::open_file(m_path.string().c_str());
  ASSERT_NO_FATAL_FAILURE(corrupt_image(bytes));
  bytes.push_back(std::byte{0});   // the size shows the change
  write(bytes);
  const std::string message = error_of([&] { package.image_for_arch("k", 90); }, KILN_STATUS_IO_ERROR);
  EXPECT_NE(message.find("'" + m_path.string() + "' has changed since it was opened"), std::string::npos) << message;
}

TEST_P(PackageChanges, AChangedImageInAFileThatLooksUnchangedFailsItsChecksum) {
#if defined(_WIN32)
  // FILETIME counts 100 ns: the time a POSIX file system kept cannot be set back exactly.
  GTEST_SKIP() << "a file's modification time cannot be restored to the nanosecond here";
#endif
  Bytes bytes = package_for("a.cu");
  write(bytes);
  const fs::file_time_type opened_time = fs::last_write_time(m_path);
  kiln::Package package = kiln::Package::open_file(m_path.string().c_str());
  ASSERT_NO_FATAL_FAILURE(corrupt_image(bytes));
  write(bytes);
  fs::last_write_time(m_path, opened_time);   // same inode, size and time: only the checksum can tell
  const std::string message = error_of([&] { package.image_for_arch("k", 90); }, KILN_STATUS_IMAGE_CORRUPT);
  EXPECT_NE(message.find("a.cu [sm_90] fails its checksum"), std::string::npos) << message;
}

// Bytes after the index grew (the size changed), the image did not: it is the image the index
// promised, so it is served.
TEST_P(PackageChanges, AnImageTheChangeLeftAloneIsServed) {
  Bytes bytes = package_for("a.cu");
  write(bytes);
  kiln::Package package = kiln::Package::open_file(m_path.string().c_str());
  bytes.push_back(std::byte{0});
  write(bytes);
  EXPECT_EQ(image_key(package.image_for_arch("k", 90).data), image_text("a.cu", "sm_90"));
}

TEST_P(PackageChanges, ImagesReadBeforeAChangeStayValid) {
  write(package_for("a.cu"));
  kiln::Package package = kiln::Package::open_file(m_path.string().c_str());
  const kiln::Image before = package.image_for_arch("k", 90);
  fs::resize_file(m_path, 0);
  const kiln::Image after = package.image_for_arch("k", 90);
  EXPECT_EQ(after.data, before.data);
  EXPECT_EQ(image_key(after.data), image_text("a.cu", "sm_90"));
}

INSTANTIATE_TEST_SUITE_P(FileSizes, PackageChanges, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& param_info) {
                           return std::string(param_info.param ? "ReadIntoReservedMemory" : "ReadIntoTheHeap");
                         });

}  // namespace
}  // namespace kiln::testing
