// Paths as users have them, on Linux and (under Wine) on Windows: spaces, letters outside ASCII,
// more than 260 characters (Windows' MAX_PATH, past which a path needs the \\?\ prefix), and on
// Windows both separators in one path. A package opens from there by file and by name, and the
// cache keeps entries there. The API takes UTF-8; the test writes the files through the platform
// layer's own conversion (a long path, prefixed) so that what it checks is the runtime's opening.
#include "runtime_fixture.hpp"
#include "test_process.hpp"

#include "platform/text.hpp"
#include "store/local_store.hpp"

#include <filesystem>
#include <fstream>

namespace kiln::testing {
namespace {

namespace fs = std::filesystem;

// A path the test's own file calls take whatever its length (Windows: \\?\-prefixed).
fs::path for_the_test(const fs::path& path) {
#if defined(_WIN32)
  return fs::path(platform::long_path(path));
#else
  return path;
#endif
}

// `utf8` with every other separator after the first written as '/' (Windows takes both).
std::string mixed_separators(std::string utf8) {
#if defined(_WIN32)
  bool flip = false;
  for (std::size_t i = 3; i < utf8.size(); ++i) {
    if (utf8[i] == '\\' && (flip = !flip)) utf8[i] = '/';
  }
#endif
  return utf8;
}

class UserPaths : public RuntimeTest {
protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    m_base = fs::temp_directory_path() /
             platform::path_of_utf8("kiln paths \xc3\xa9t\xc3\xa9 \xe4\xb8\xad " + std::to_string(kiln::test::process_id()));
    m_dir = m_base;
    for (int level = 0; platform::utf8_of(m_dir).size() < 300; ++level) {
      m_dir /= platform::path_of_utf8("a directory with spaces " + std::to_string(level));
    }
    fs::create_directories(for_the_test(m_dir));
    const Bytes package = single_kernel_package({"sm_90"});
    std::ofstream(for_the_test(m_dir / "app.kiln"), std::ios::binary)
        .write(reinterpret_cast<const char*>(package.data()), static_cast<std::streamsize>(package.size()));
  }
  void TearDown() override {
    kiln::test::unset_variable("KILN_PACKAGE_PATH");
    std::error_code ignored;
    fs::remove_all(for_the_test(m_base), ignored);
    RuntimeTest::TearDown();
  }
  fs::path m_base, m_dir;
};

TEST_F(UserPaths, APackageOpensByItsLongNonAsciiPath) {
  const std::string file = mixed_separators(platform::utf8_of(m_dir / "app.kiln"));
  ASSERT_GT(file.size(), 260u);
  kiln::Package package = kiln::Package::open_file(file.c_str());
  EXPECT_EQ(package.kernel_names(), std::vector<std::string>{"k"});
  package.kernel("k");   // its image read (BLOBS is read when first used) and loaded
}

TEST_F(UserPaths, APackageOpensByNameFromADirectoryOnTheLongNonAsciiPath) {
  kiln::test::set_variable("KILN_PACKAGE_PATH", mixed_separators(platform::utf8_of(m_dir)));
  kiln::Package package = kiln::Package::open("app");
  EXPECT_EQ(package.kernel_names(), std::vector<std::string>{"k"});
}

TEST_F(UserPaths, AMissingFileThereIsNamedInUtf8) {
  const std::string file = platform::utf8_of(m_dir / "absent.kiln");
  kiln_package* package = nullptr;
  EXPECT_EQ(kiln_package_open_file(file.c_str(), &package), KILN_STATUS_IO_ERROR);
  EXPECT_NE(std::string(kiln_last_error()).find("\xc3\xa9t\xc3\xa9 \xe4\xb8\xad"), std::string::npos) << kiln_last_error();
}

TEST_F(UserPaths, TheCacheKeepsEntriesThere) {
  const std::string key = "0123456789abcdef0123456789abcdef";
  const std::vector<std::byte> value(1000, std::byte{7});
  store::LocalStore(m_dir / "cache", 0).put(key, value);
  EXPECT_EQ(store::LocalStore(m_dir / "cache", 0).get(key), value);
  const Status writable = store::LocalStore(m_dir / "cache", 0).check_writable();
  EXPECT_TRUE(writable.ok()) << writable.error().message;
}

}  // namespace
}  // namespace kiln::testing
