// The C ABI itself: NULL handling, statuses, the version, last errors, open_file on every kind of
// bad file, and a package without a driver.
#include "runtime_fixture.hpp"
#include "test_process.hpp"

#include "core/driver_access.hpp"

#if !defined(_WIN32)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <future>
#include <fstream>
#include <set>
#include <thread>

namespace kiln::testing {
namespace {

namespace fs = std::filesystem;

TEST(CApi, VersionIsTheHeaders) {
  EXPECT_EQ(kiln_version(), static_cast<std::uint32_t>(KILN_VERSION));
  EXPECT_EQ(KILN_VERSION, KILN_TEST_PROJECT_VERSION);  // CMakeLists.txt's project(VERSION)
}

TEST(CApi, EveryStatusHasItsOwnDescription) {
  std::set<std::string> seen;
  for (int s = KILN_STATUS_SUCCESS; s <= KILN_STATUS_NO_COMPILER; ++s) {
    const std::string text = kiln_status_string(static_cast<kiln_status>(s));
    EXPECT_NE(text, "unknown status") << s;
    EXPECT_TRUE(seen.insert(text).second) << "duplicate description: " << text;
  }
  EXPECT_STREQ(kiln_status_string(static_cast<kiln_status>(20)), "unknown status");
  EXPECT_STREQ(kiln_status_string(static_cast<kiln_status>(31)), "unknown status");
}

TEST(CApi, NullArgumentsAreRefusedAndDestroyNullIsANoOp) {
  kiln_package_destroy(nullptr);
  kiln_package* package = reinterpret_cast<kiln_package*>(0x1);  // must be reset to NULL
  EXPECT_EQ(kiln_package_open_file(nullptr, &package), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(package, nullptr);
  EXPECT_STREQ(kiln_last_error(), "kiln_package_open_file: path is NULL");
  EXPECT_EQ(kiln_package_open_file("x.kiln", nullptr), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_package_open_memory(nullptr, 10, KILN_OPEN_COPY, nullptr, &package), KILN_STATUS_INVALID_ARGUMENT);
  char byte = 0;
  EXPECT_EQ(kiln_package_open_memory(&byte, 1, KILN_OPEN_COPY, nullptr, nullptr), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_package_open_memory(&byte, 1, 7u, nullptr, &package), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_package_open_memory(&byte, 0, KILN_OPEN_BORROW, nullptr, &package), KILN_STATUS_TRUNCATED);

  EXPECT_STREQ(kiln_package_last_error(nullptr), "");
  EXPECT_EQ(kiln_package_kernel_count(nullptr), 0u);
  EXPECT_EQ(kiln_package_kernel_name(nullptr, 0), nullptr);
  EXPECT_EQ(kiln_package_kernel_lowered_name(nullptr, 0), nullptr);
  EXPECT_EQ(kiln_kernel_lowered_name(nullptr), nullptr);
  EXPECT_EQ(kiln_package_target_count(nullptr), 0u);
  EXPECT_EQ(kiln_package_target(nullptr, 0), nullptr);
  kiln_kernel* kernel = nullptr;
  EXPECT_EQ(kiln_package_get_kernel(nullptr, "k", &kernel), KILN_STATUS_INVALID_ARGUMENT);
  std::uint64_t pointer = 0;
  EXPECT_EQ(kiln_package_get_global(nullptr, "v", &pointer, nullptr), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_package_preload(nullptr), KILN_STATUS_INVALID_ARGUMENT);
  std::size_t count = 0;
  EXPECT_EQ(kiln_kernel_params(nullptr, &count, nullptr, nullptr, 0), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_kernel_name(nullptr), nullptr);
  EXPECT_EQ(kiln_kernel_launch(nullptr, {1, 1, 1}, {1, 1, 1}, 0, nullptr, nullptr, 0), KILN_STATUS_INVALID_ARGUMENT);
  void* handle = nullptr;
  EXPECT_EQ(kiln_kernel_handle(nullptr, &handle), KILN_STATUS_INVALID_ARGUMENT);
}

TEST_F(RuntimeTest, NullArgumentsOnAnOpenPackage) {
  kiln::Package package = open(single_kernel_package({"sm_90"}));
  kiln_kernel* kernel = nullptr;
  EXPECT_EQ(kiln_package_get_kernel(package.get(), nullptr, &kernel), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_package_get_kernel(package.get(), "k", nullptr), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(kiln_package_last_error(package.get()), "kiln_package_get_kernel: out is NULL");
  EXPECT_EQ(kiln_package_get_global(package.get(), "v", nullptr, nullptr), KILN_STATUS_INVALID_ARGUMENT);
  ASSERT_EQ(kiln_package_get_kernel(package.get(), "k", &kernel), KILN_STATUS_SUCCESS);
  EXPECT_EQ(kiln_kernel_params(kernel, nullptr, nullptr, nullptr, 0), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_kernel_handle(kernel, nullptr), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_STREQ(kiln_kernel_name(kernel), "k");
  EXPECT_STREQ(kiln_kernel_lowered_name(kernel), kiln_package_kernel_lowered_name(package.get(), 0));
  EXPECT_EQ(kiln_package_kernel_name(package.get(), 1), nullptr);
  EXPECT_EQ(kiln_package_target(package.get(), 1), nullptr);
}

TEST_F(RuntimeTest, ListingNeedsNoDriver) {
  driver::DriverLoad load;
  load.failure = driver::DriverLoadFailure::no_library;
  load.message = "libcuda.so.1: cannot open shared object file: No such file or directory";
  core::set_driver_load_for_testing(std::move(load));

  kiln::Package package = open(single_kernel_package({"sm_90", "compute_80"}));
  EXPECT_EQ(package.kernel_names(), std::vector<std::string>{"k"});
  EXPECT_EQ(package.targets(), (std::vector<std::string>{"sm_90", "compute_80"}));
  EXPECT_STREQ(kiln_package_kernel_lowered_name(package.get(), 0), "k");
  error_of([&] { package.kernel("nope"); }, KILN_STATUS_KERNEL_NOT_FOUND);  // decided without a driver
  const std::string message = error_of([&] { package.kernel("k"); }, KILN_STATUS_NO_DRIVER);
  EXPECT_EQ(message, "libcuda.so.1: cannot open shared object file: No such file or directory");
  error_of([&] { package.preload(); }, KILN_STATUS_NO_DRIVER);
  error_of([&] { package.global("x"); }, KILN_STATUS_VARIABLE_NOT_FOUND);
}

TEST_F(RuntimeTest, DriverLoadFailuresBecomeStatuses) {
  struct Case {
    driver::DriverLoadFailure failure;
    driver::CUresult init_result;
    kiln_status expected;
  };
  for (const Case& c : {Case{driver::DriverLoadFailure::stub_library, 0, KILN_STATUS_NO_DRIVER},
                        Case{driver::DriverLoadFailure::too_old, 0, KILN_STATUS_NO_DRIVER},
                        Case{driver::DriverLoadFailure::init_failed, 100, KILN_STATUS_NO_DEVICE},
                        Case{driver::DriverLoadFailure::init_failed, 2, KILN_STATUS_OUT_OF_MEMORY},
                        Case{driver::DriverLoadFailure::init_failed, 999, KILN_STATUS_DRIVER_ERROR}}) {
    driver::DriverLoad load;
    load.failure = c.failure;
    load.init_result = c.init_result;
    load.message = "the loader says why";
    core::set_driver_load_for_testing(std::move(load));
    kiln::Package package = open(single_kernel_package({"sm_90"}));
    EXPECT_EQ(error_of([&] { package.kernel("k"); }, c.expected), "the loader says why");
  }
}

TEST_F(RuntimeTest, NoDeviceFromTheDriverIsNoDevice) {
  fake->devices.clear();
  kiln::Package package = open(single_kernel_package({"sm_90"}));
  const std::string message = error_of([&] { package.kernel("k"); }, KILN_STATUS_NO_DEVICE);
  EXPECT_EQ(message, "cuDeviceGet for device 0 failed: CUDA_ERROR_NO_DEVICE (100)");
}

TEST_F(RuntimeTest, LastErrorsArePerThreadAndPerPackage) {
  kiln::Package first = open(single_kernel_package({"sm_90"}), "first.kiln");
  kiln::Package second = open(single_kernel_package({"sm_90"}), "second.kiln");
  kiln_kernel* kernel = nullptr;
  EXPECT_EQ(kiln_package_get_kernel(first.get(), "x", &kernel), KILN_STATUS_KERNEL_NOT_FOUND);
  const std::string message = "no kernel 'x' in first.kiln; nearest: k";
  EXPECT_EQ(kiln_last_error(), message);
  EXPECT_EQ(kiln_package_last_error(first.get()), message);
  EXPECT_STREQ(kiln_package_last_error(second.get()), "");
  std::thread([&] {
    EXPECT_STREQ(kiln_last_error(), "");
    EXPECT_STREQ(kiln_package_last_error(first.get()), "");
    EXPECT_EQ(kiln_package_get_kernel(first.get(), "y", &kernel), KILN_STATUS_KERNEL_NOT_FOUND);
  }).join();
  EXPECT_EQ(kiln_package_last_error(first.get()), message);  // the other thread's failure is its own
}

// A message leaves Kiln through kiln_last_error: the control bytes of the names in it (ESC [ 31 m
// would turn a terminal red, a carriage return let later text overwrite the line) come out escaped.
TEST_F(RuntimeTest, ControlBytesOfFileAndKernelNamesAreEscapedInTheLastError) {
  const fs::path dir = fs::temp_directory_path() / ("kiln-escape-" + std::to_string(kiln::test::process_id()));
  fs::create_directories(dir);
  const Bytes bytes = single_kernel_package({"sm_90"});
#if !defined(_WIN32)
  const fs::path file = dir / "\x1b[31mred\r.kiln";
  std::ofstream(file, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                              static_cast<std::streamsize>(bytes.size()));
  const std::string shown_file = (dir / "\\x1b[31mred\\x0d.kiln").string();
#endif
  const auto raw_control = [](const std::string& text) {
    for (const char c : text)
      if ((static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') || c == 0x7f) return true;
    return false;
  };
  kiln_package* missing = nullptr;
  EXPECT_NE(kiln_package_open_file((dir / "gone\x1b[2J.kiln").string().c_str(), &missing), KILN_STATUS_SUCCESS);
  EXPECT_NE(std::string(kiln_last_error()).find("gone\\x1b[2J.kiln"), std::string::npos) << kiln_last_error();
  EXPECT_FALSE(raw_control(kiln_last_error()));

  kiln_package* package = nullptr;
#if defined(_WIN32)
  // Windows' file names hold no control bytes: the package's label carries them instead.
  kiln::Package labelled = open(bytes, "\x1b[31mred\r.kiln");
  package = labelled.release();
  const std::string shown = "\\x1b[31mred\\x0d.kiln";
#else
  ASSERT_EQ(kiln_package_open_file(file.string().c_str(), &package), KILN_STATUS_SUCCESS) << kiln_last_error();
  const std::string shown = shown_file;
#endif
  kiln_kernel* kernel = nullptr;
  // DEL, and the C1 control CSI (U+009B) as UTF-8 writes it; "é" (0xc3 0xa9) is text and stays.
  EXPECT_EQ(kiln_package_get_kernel(package, "k\x1b[31m\x7f\xc2\x9b" "1m\xc3\xa9", &kernel), KILN_STATUS_KERNEL_NOT_FOUND);
  const std::string message = "no kernel 'k\\x1b[31m\\x7f\\xc2\\x9b" "1m\xc3\xa9' in " + shown;
  EXPECT_EQ(std::string(kiln_last_error()).rfind(message, 0), 0u) << kiln_last_error();
  EXPECT_FALSE(raw_control(kiln_last_error())) << kiln_last_error();
  EXPECT_STREQ(kiln_package_last_error(package), kiln_last_error());
  kiln_package_destroy(package);
  fs::remove_all(dir);
}

TEST_F(RuntimeTest, MemoryPackagesCopyOrBorrow) {
  Bytes bytes = single_kernel_package({"sm_90"});
  kiln_package* copied = nullptr;
  {
    Bytes scratch = bytes;
    ASSERT_EQ(kiln_package_open_memory(scratch.data(), scratch.size(), KILN_OPEN_COPY, nullptr, &copied),
              KILN_STATUS_SUCCESS);
    std::fill(scratch.begin(), scratch.end(), std::byte{0});  // the copy does not see this
  }
  kiln::Package copy(copied);
  EXPECT_EQ(copy.kernel_names(), std::vector<std::string>{"k"});
  kiln::Package borrowed = kiln::Package::open_memory(bytes.data(), bytes.size(), KILN_OPEN_BORROW);
  EXPECT_STREQ(kiln_package_kernel_name(borrowed.get(), 0), "k");
  const std::string message = error_of([&] { borrowed.kernel("x"); }, KILN_STATUS_KERNEL_NOT_FOUND);
  EXPECT_EQ(message, "no kernel 'x' in <memory>; nearest: k");
}

class OpenFile : public RuntimeTest {
protected:
  fs::path write(const std::string& name, const Bytes& bytes) {
    const fs::path path = m_dir / name;
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                static_cast<std::streamsize>(bytes.size()));
    return path;
  }
  kiln_status open_status(const fs::path& path) {
    kiln_package* package = nullptr;
    const kiln_status status = kiln_package_open_file(path.string().c_str(), &package);
    kiln_package_destroy(package);
    return status;
  }
  void SetUp() override {
    RuntimeTest::SetUp();
    m_dir = fs::path(::testing::TempDir()) / ("kiln_open_file_" + std::to_string(kiln::test::process_id()));
    fs::create_directories(m_dir);
  }
  void TearDown() override {
    fs::remove_all(m_dir);
    RuntimeTest::TearDown();
  }
  fs::path m_dir;
};

TEST_F(OpenFile, EveryKindOfBadFileHasItsStatus) {
  const Bytes good = single_kernel_package({"sm_90"});
  Bytes newer = good;
  newer[8] = std::byte{3};  // version_major 3
  Bytes older = good;
  older[8] = std::byte{1};  // version_major 1: a format before Kiln's first release
  Bytes damaged = good;
  damaged[good.size() - 20] ^= std::byte{0xff};  // inside the TOC: its checksum fails
  const Bytes foreign = {std::byte{0x7f}, std::byte{'E'}, std::byte{'L'}, std::byte{'F'}, std::byte{2},
                         std::byte{1},    std::byte{1},   std::byte{0},   std::byte{0},   std::byte{0}};

  EXPECT_EQ(open_status(write("good.kiln", good)), KILN_STATUS_SUCCESS);
  EXPECT_EQ(open_status(m_dir / "missing.kiln"), KILN_STATUS_IO_ERROR);
  EXPECT_THAT(kiln_last_error(), ::testing::HasSubstr("missing.kiln': No such file or directory"));
  EXPECT_EQ(open_status(m_dir), KILN_STATUS_IO_ERROR);
  EXPECT_THAT(kiln_last_error(), ::testing::HasSubstr("is a directory"));
  EXPECT_EQ(open_status(write("empty.kiln", {})), KILN_STATUS_TRUNCATED);
  EXPECT_EQ(open_status(write("half.kiln", Bytes(good.begin(), good.begin() + good.size() / 2))), KILN_STATUS_TRUNCATED);
  EXPECT_EQ(open_status(write("foreign.kiln", foreign)), KILN_STATUS_NOT_A_PACKAGE);
  EXPECT_EQ(open_status(write("newer.kiln", newer)), KILN_STATUS_UNSUPPORTED_VERSION);
  EXPECT_EQ(open_status(write("older.kiln", older)), KILN_STATUS_UNSUPPORTED_VERSION);
  EXPECT_THAT(kiln_last_error(), ::testing::HasSubstr("older.kiln: package format 1.0 predates Kiln's first release "
                                                      "(format 2.0): rebuild the package with this Kiln"));
  EXPECT_EQ(open_status(write("damaged.kiln", damaged)), KILN_STATUS_CORRUPT);
  EXPECT_EQ(open_status("/dev/null"), KILN_STATUS_IO_ERROR);  // not a regular file
}

#if !defined(_WIN32)
// A FIFO with no writer would block an open, a device may never end: both are refused at once, with
// what they are. Should the open wait after all, the test opens the FIFO's other end to free it.
TEST_F(OpenFile, AFifoOrADeviceIsRefusedAtOnceSayingWhatItIs) {
  const fs::path fifo = m_dir / "fifo.kiln";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  // The last error is the calling thread's: taken where the open ran.
  std::future<std::pair<kiln_status, std::string>> opened = std::async(std::launch::async, [&] {
    const kiln_status status = open_status(fifo);
    return std::pair<kiln_status, std::string>(status, kiln_last_error());
  });
  if (opened.wait_for(std::chrono::seconds(20)) != std::future_status::ready) {
    const int writer = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
    opened.wait();
    ::close(writer);
    FAIL() << "kiln_package_open_file waited on a FIFO";
  }
  const auto [status, message] = opened.get();
  EXPECT_EQ(status, KILN_STATUS_IO_ERROR);
  EXPECT_THAT(message, ::testing::HasSubstr("fifo.kiln' is a FIFO, not a regular file"));
  EXPECT_EQ(open_status("/dev/zero"), KILN_STATUS_IO_ERROR);
  EXPECT_THAT(kiln_last_error(), ::testing::HasSubstr("'/dev/zero' is a character device, not a regular file"));
}
#endif

TEST_F(OpenFile, AMappedPackageLoadsImages) {
  const fs::path path = write("app.kiln", single_kernel_package({"sm_80", "sm_90"}));
  kiln::Package package = kiln::Package::open_file(path.string());
  package.kernel("k");
  EXPECT_EQ(fake->loads(), std::vector<std::string>{image_text("ops.cu", "sm_90")});
}

// Hostile bytes: every single-byte change of a package either fails to open or opens into a package
// whose listing and loading work; none crashes (run under ASan/TSan builds as well).
TEST_F(RuntimeTest, DamagedPackagesNeverCrash) {
  const Bytes good = single_kernel_package({"sm_80", "sm_90", "compute_80"});
  for (std::size_t i = 0; i < good.size(); i += 3) {
    Bytes bytes = good;
    bytes[i] ^= std::byte{0x5a};
    kiln_package* package = nullptr;
    if (kiln_package_open_memory(bytes.data(), bytes.size(), KILN_OPEN_BORROW, "damaged", &package) ==
        KILN_STATUS_SUCCESS) {
      for (std::size_t k = 0; k < kiln_package_kernel_count(package); ++k) {
        kiln_kernel* kernel = nullptr;
        kiln_package_get_kernel(package, kiln_package_kernel_name(package, k), &kernel);
      }
    }
    kiln_package_destroy(package);
  }
}

}  // namespace
}  // namespace kiln::testing
