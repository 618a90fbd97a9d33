// kiln_package_open_named and embedded registrations: names, the order of the places looked
// (embedded, next to the calling module, KILN_PACKAGE_PATH), and the message listing them all.
// "Next to the calling module" is checked with named_probe, a shared library copied into a
// temporary directory: packages beside it are found from it, and not from this program.
#include "core/named_package.hpp"
#include "platform/library.hpp"
#include "platform/text.hpp"
#include "runtime_fixture.hpp"
#include "test_process.hpp"

#include <filesystem>
#include <fstream>
#include <string>

namespace kiln::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

// KILN_PACKAGE_PATH's separator on this system, and named_probe's file as built.
const std::string k_sep(1, platform::path_list_separator());
const fs::path k_probe_file = fs::path(KILN_TEST_NAMED_PROBE).filename();

// A package with `kernels` kernels named k0, k1, ...: the count tells the tests which one opened.
Bytes package_with(std::size_t kernels) {
  PackageSpec spec;
  spec.units = {{"ops.cu", {"sm_90"}}};
  for (std::size_t i = 0; i < kernels; ++i) spec.kernels.emplace_back(std::string("k").append(std::to_string(i)), "ops.cu");
  return build_package(spec);
}

class NamedPackage : public RuntimeTest {
protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    kiln::test::unset_variable("KILN_PACKAGE_PATH");
    m_dir = fs::temp_directory_path() / ("kiln-named-" + std::to_string(kiln::test::process_id()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
  }
  void TearDown() override {
    kiln::test::unset_variable("KILN_PACKAGE_PATH");
    std::error_code ignored;   // Windows keeps a DLL's file while the library stays loaded
    fs::remove_all(m_dir, ignored);
    RuntimeTest::TearDown();
  }

  // named_probe in `directory`, and on Windows the kiln.dll it imports beside it (a DLL's imports
  // are found in its own directory first).
  void copy_probe_to(const fs::path& directory) const {
    fs::create_directories(directory);
    fs::copy_file(KILN_TEST_NAMED_PROBE, directory / k_probe_file);
#if defined(_WIN32)
    fs::copy_file(KILN_TEST_KILN_DLL, directory / "kiln.dll");
#endif
  }

  fs::path write(const fs::path& relative, const Bytes& bytes) const {
    const fs::path path = m_dir / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                                static_cast<std::streamsize>(bytes.size()));
    return path;
  }

  // Opens `name` from this program: the kernel count, or 0 with the status in `status`.
  static std::size_t open_here(const char* name, kiln_status* status = nullptr) {
    kiln_package* package = nullptr;
    const kiln_status s = kiln_package_open_named(name, &package);
    if (status) *status = s;
    const std::size_t count = kiln_package_kernel_count(package);
    kiln_package_destroy(package);
    return count;
  }

  fs::path m_dir;
};

TEST_F(NamedPackage, NamesAreNamesNotPaths) {
  kiln_package* package = reinterpret_cast<kiln_package*>(0x1);
  EXPECT_EQ(kiln_package_open_named(nullptr, &package), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(package, nullptr);
  EXPECT_EQ(kiln_package_open_named("x", nullptr), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_package_open_named("", &package), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_package_open_named("dir/app", &package), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(kiln_last_error(), HasSubstr("is a path"));
  EXPECT_EQ(kiln_package_open_named("app.kiln", &package), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_THAT(kiln_last_error(), HasSubstr("without it"));
  EXPECT_EQ(kiln_register_embedded(nullptr, "x", 1), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_register_embedded("x", nullptr, 1), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_register_embedded("", "x", 1), KILN_STATUS_INVALID_ARGUMENT);
  // Names kiln_package_open_named refuses could never be found: registering them fails, saying why.
  EXPECT_EQ(kiln_register_embedded("dir/pkg", "x", 1), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(kiln_last_error()).find("kiln_register_embedded: name 'dir/pkg' is a path"), std::string::npos)
      << kiln_last_error();
  EXPECT_EQ(kiln_register_embedded("pkg.kiln", "x", 1), KILN_STATUS_INVALID_ARGUMENT);
  kiln_unregister_embedded(nullptr, nullptr);  // ignored
}

TEST_F(NamedPackage, EmbeddedPackagesOpenByNameInPlace) {
  const Bytes bytes = package_with(2);
  ASSERT_EQ(kiln_register_embedded("embedded_here", bytes.data(), bytes.size()), KILN_STATUS_SUCCESS);
  ASSERT_EQ(kiln_register_embedded("embedded_here", bytes.data(), bytes.size()), KILN_STATUS_SUCCESS);  // once
  kiln::Package package = kiln::Package::open("embedded_here");
  EXPECT_EQ(package.kernel_names(), (std::vector<std::string>{"k0", "k1"}));
  const std::string missing = error_of([&] { package.kernel("nope"); }, KILN_STATUS_KERNEL_NOT_FOUND);
  EXPECT_THAT(missing, HasSubstr("embedded_here (embedded)"));  // heap bytes: in no module

  kiln_unregister_embedded("embedded_here", bytes.data());
  kiln_status status = KILN_STATUS_SUCCESS;
  EXPECT_EQ(open_here("embedded_here", &status), 0u);
  EXPECT_EQ(status, KILN_STATUS_PACKAGE_NOT_FOUND);  // one unregister undoes both registrations
}

TEST_F(NamedPackage, NotFoundListsEveryPlaceLooked) {
  const Bytes other = package_with(1);
  ASSERT_EQ(kiln_register_embedded("other", other.data(), other.size()), KILN_STATUS_SUCCESS);
  kiln::test::set_variable("KILN_PACKAGE_PATH", (m_dir / "a").string() + k_sep + k_sep + (m_dir / "b").string());
  kiln_status status = KILN_STATUS_SUCCESS;
  EXPECT_EQ(open_here("app", &status), 0u);
  EXPECT_EQ(status, KILN_STATUS_PACKAGE_NOT_FOUND);
  const std::string message = kiln_last_error();
  const fs::path self = kiln::test::own_program();
  EXPECT_THAT(message, HasSubstr("no package 'app'; looked in: embedded packages (registered: other); "));
  EXPECT_THAT(message, HasSubstr((self.parent_path() / "app.kiln").string() + " (next to the calling module " +
                                 self.string() + "); "));
  EXPECT_THAT(message, HasSubstr("KILN_PACKAGE_PATH: " + (m_dir / "a" / "app.kiln").string() + ", " +
                                 (m_dir / "b" / "app.kiln").string()));
  kiln::test::unset_variable("KILN_PACKAGE_PATH");
  EXPECT_EQ(open_here("app", &status), 0u);
  EXPECT_THAT(kiln_last_error(), HasSubstr("KILN_PACKAGE_PATH (not set or empty)"));
  kiln_unregister_embedded("other", other.data());
}

TEST_F(NamedPackage, PackagePathDirectoriesAreSearchedInOrder) {
  write("b/app.kiln", package_with(2));
  write("c/app.kiln", package_with(3));
  kiln::test::set_variable("KILN_PACKAGE_PATH",
                           (m_dir / "a").string() + k_sep + (m_dir / "b").string() + k_sep + (m_dir / "c").string());
  EXPECT_EQ(open_here("app"), 2u);
  EXPECT_EQ(core::split_package_path(k_sep + "x" + k_sep + k_sep + "y/z" + k_sep), (std::vector<std::string>{"x", "y/z"}));
}

TEST_F(NamedPackage, ADamagedFileIsReportedNotSkipped) {
  write("a/app.kiln", Bytes(100, std::byte{0x42}));
  write("b/app.kiln", package_with(1));
  kiln::test::set_variable("KILN_PACKAGE_PATH", (m_dir / "a").string() + k_sep + (m_dir / "b").string());
  kiln_status status = KILN_STATUS_SUCCESS;
  EXPECT_EQ(open_here("app", &status), 0u);
  EXPECT_EQ(status, KILN_STATUS_NOT_A_PACKAGE);
}

// named_probe, loaded from a copy in the test's directory; its calls go through libkiln.so (kiln.dll).
class Probe {
public:
  explicit Probe(const fs::path& library) {
    platform::OpenedLibrary opened = platform::open_library(platform::utf8_of(library));
    if (!opened.handle) throw std::runtime_error("cannot load " + library.string() + ": " + opened.error);
    m_handle = opened.handle;
  }
  ~Probe() { platform::close_library(m_handle); }
  Probe(const Probe&) = delete;
  Probe& operator=(const Probe&) = delete;

  template <class Function>
  Function* get(const char* name) const {
    void* symbol = platform::library_symbol(m_handle, name);
    if (!symbol) throw std::runtime_error(std::string("dlsym ") + name);
    return reinterpret_cast<Function*>(symbol);
  }
  std::size_t open(const char* name, kiln_status* status = nullptr) const {
    std::size_t count = 0;
    const kiln_status s = get<kiln_status(const char*, std::size_t*)>("named_probe_open")(name, &count);
    if (status) *status = s;
    return count;
  }

private:
  void* m_handle;
};

TEST_F(NamedPackage, LooksNextToTheCallingLibraryThenThePackagePath) {
  fs::create_directories(m_dir / "lib");
  copy_probe_to(m_dir / "lib");
  write("lib/beside.kiln", package_with(2));
  write("path/beside.kiln", package_with(3));
  write("path/elsewhere.kiln", package_with(3));
  kiln::test::set_variable("KILN_PACKAGE_PATH", (m_dir / "path").string());
  const Probe probe(m_dir / "lib" / k_probe_file);

  EXPECT_EQ(probe.open("beside"), 2u);  // next to the library wins over KILN_PACKAGE_PATH
  EXPECT_EQ(probe.get<std::size_t(const char*)>("named_probe_open_cpp")("beside"), 2u);
  EXPECT_EQ(probe.open("elsewhere"), 3u);
  EXPECT_EQ(open_here("beside"), 3u);  // from this program, the library's directory is not looked in

  kiln_status status = KILN_STATUS_SUCCESS;
  EXPECT_EQ(probe.open("absent", &status), 0u);
  EXPECT_EQ(status, KILN_STATUS_PACKAGE_NOT_FOUND);
  const std::string message = probe.get<const char*()>("named_probe_last_error")();
  EXPECT_THAT(message, HasSubstr((fs::canonical(m_dir / "lib") / "absent.kiln").string() + " (next to the calling module " +
                                 fs::canonical(m_dir / "lib" / k_probe_file).string() + ")"));
}

TEST_F(NamedPackage, EmbeddedComesBeforeTheFileNextToTheModule) {
  fs::create_directories(m_dir / "lib");
  copy_probe_to(m_dir / "lib");
  write("lib/both.kiln", package_with(2));
  const Probe probe(m_dir / "lib" / k_probe_file);
  const Bytes embedded = package_with(1);
  using Register = kiln_status(const char*, const void*, std::size_t);
  ASSERT_EQ(probe.get<Register>("named_probe_register")("both", embedded.data(), embedded.size()), KILN_STATUS_SUCCESS);
  EXPECT_EQ(probe.open("both"), 1u);
  probe.get<void(const char*, const void*)>("named_probe_unregister")("both", embedded.data());
  EXPECT_EQ(probe.open("both"), 2u);
}

}  // namespace
}  // namespace kiln::testing
