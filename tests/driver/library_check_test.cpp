// A driver library named by KILN_LIBCUDA is loaded only by an absolute path and only when its file,
// read and never run, is an ELF shared object for this machine that exports cuGetProcAddress_v2:
// anything else is refused naming the file and why, before any of its code (a constructor) runs.
// POSIX only: on Windows LoadLibraryExW judges the file itself (docs/runtime.md, Windows).
#include "driver/driver_api.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#if !defined(_WIN32)
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <vector>

namespace kiln::driver {
namespace {

namespace fs = std::filesystem;
using test::contains;
using test::ScopedEnv;

class LibraryCheck : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() /
            ("kiln-library-check-" + std::to_string(getpid()) + "-" + std::to_string(std::random_device{}()));
    fs::create_directories(m_dir);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::remove_all(m_dir, ignored);
  }
  // The fake driver with `edit` applied to its bytes, as a file of its own.
  fs::path edited_fake(const std::string& name, void (*edit)(std::vector<char>&)) const {
    std::ifstream in(KILN_TEST_FAKE_LIBCUDA, std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    edit(bytes);
    const fs::path path = m_dir / name;
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path;
  }
  fs::path m_dir;
};

DriverLoad load_from(const fs::path& path) {
  ScopedEnv env("KILN_LIBCUDA", path.c_str());
  return load_system_driver();
}

TEST_F(LibraryCheck, ARelativeOverrideIsRefusedNamingTheVariableThoughTheFileIsThere) {
  fs::create_directories(m_dir / "lib");
  fs::copy_file(KILN_TEST_FAKE_LIBCUDA, m_dir / "lib" / "libcuda.so.1");
  const fs::path before = fs::current_path();
  fs::current_path(m_dir);
  const DriverLoad load = load_from("lib/libcuda.so.1");
  fs::current_path(before);
  EXPECT_EQ(load.failure, DriverLoadFailure::no_library) << load.message;
  EXPECT_EQ(load.driver, nullptr);
  EXPECT_TRUE(contains(load.message, "KILN_LIBCUDA is 'lib/libcuda.so.1', a relative path; it must be absolute"));
}

TEST_F(LibraryCheck, ALibraryWithoutTheEntryPointIsRefusedBeforeItsConstructorRuns) {
  const fs::path marker = m_dir / "constructor-ran";
  ScopedEnv marking("KILN_TEST_MARKER", marker.c_str());
  const DriverLoad load = load_from(KILN_TEST_MARKER_LIBRARY);
  EXPECT_EQ(load.failure, DriverLoadFailure::too_old) << load.message;
  EXPECT_TRUE(contains(load.message, std::string("(") + KILN_TEST_MARKER_LIBRARY + " has no cuGetProcAddress_v2)"));
  EXPECT_FALSE(fs::exists(marker)) << "the library's constructor ran";
}

TEST_F(LibraryCheck, ATextFileIsRefusedNamingItAndWhy) {
  const fs::path text = m_dir / "libcuda.so.1";
  std::ofstream(text) << "not a library\n";
  const DriverLoad load = load_from(text);
  EXPECT_EQ(load.failure, DriverLoadFailure::no_library);
  EXPECT_TRUE(contains(load.message, text.string() + " cannot be opened (KILN_LIBCUDA): not loaded: it is not an ELF file"));
}

TEST_F(LibraryCheck, ALibraryForAnotherMachineIsRefused) {
  const fs::path other = edited_fake("other-machine.so", [](std::vector<char>& b) {
    const bool arm = b[18] == char(183);
    b[18] = char(arm ? 62 : 183);   // e_machine: x86-64 <-> AArch64
    b[19] = 0;
  });
  const DriverLoad load = load_from(other);
  EXPECT_EQ(load.failure, DriverLoadFailure::no_library);
  EXPECT_TRUE(contains(load.message, other.string() + " cannot be opened (KILN_LIBCUDA): not loaded: it is built for "
                                                      "another machine (ELF machine "));
}

TEST_F(LibraryCheck, A32BitLibraryIsRefused) {
  const fs::path narrow = edited_fake("32-bit.so", [](std::vector<char>& b) { b[4] = 1; });   // EI_CLASS: ELFCLASS32
  const DriverLoad load = load_from(narrow);
  EXPECT_EQ(load.failure, DriverLoadFailure::no_library);
  EXPECT_TRUE(contains(load.message, "not loaded: it is built for another machine (a 32-bit ELF file; this process is 64-bit)"));
}

TEST_F(LibraryCheck, AnExecutableIsRefused) {
  const fs::path program = edited_fake("program", [](std::vector<char>& b) { b[16] = 2; });   // e_type: ET_EXEC
  const DriverLoad load = load_from(program);
  EXPECT_EQ(load.failure, DriverLoadFailure::no_library);
  EXPECT_TRUE(contains(load.message, program.string() + " cannot be opened (KILN_LIBCUDA): not loaded: it is an "
                                                        "executable (ELF type 2), not a shared library"));
}

TEST_F(LibraryCheck, AFifoIsRefusedWithoutWaitingForAWriter) {
  const fs::path fifo = m_dir / "libcuda.so.1";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const DriverLoad load = load_from(fifo);
  EXPECT_EQ(load.failure, DriverLoadFailure::no_library);
  EXPECT_TRUE(contains(load.message, "not loaded: it is not a regular file"));
}

// Kiln's variables name libraries to load: a setuid program (secure_getenv's "secure execution")
// must not take them from the user who runs it.
TEST_F(LibraryCheck, ASetuidProgramSeesNoneOfTheVariables) {
  if (geteuid() != 0) GTEST_SKIP() << "making a setuid program needs root";
  if (std::system("setpriv --help >/dev/null 2>&1") != 0) GTEST_SKIP() << "no setpriv";
  struct statvfs mount {};
  if (statvfs(m_dir.c_str(), &mount) != 0 || (mount.f_flag & ST_NOSUID) != 0) GTEST_SKIP() << m_dir << " is nosuid";
  const fs::path probe = m_dir / "probe";
  fs::copy_file(KILN_TEST_ENVIRONMENT_PROBE, probe);
  fs::permissions(m_dir, fs::perms(0755));
  ASSERT_EQ(chmod(probe.c_str(), 04755), 0);
  const auto run = [&](const std::string& prefix) {
    const std::string command = "KILN_LIBCUDA=/opt/elsewhere/libcuda.so.1 " + prefix + probe.string() + " KILN_LIBCUDA";
    std::string out;
    if (std::FILE* pipe = popen(command.c_str(), "r")) {
      char line[256];
      while (std::fgets(line, sizeof line, pipe)) out += line;
      pclose(pipe);
    }
    return out;
  };
  EXPECT_EQ(run(""), "/opt/elsewhere/libcuda.so.1\n") << "run by its owner, it reads the variable";
  const std::string as_nobody = run("setpriv --reuid=65534 --regid=65534 --clear-groups ");
  if (as_nobody.empty()) GTEST_SKIP() << "cannot run a program as another user here (nosuid mount?)";
  EXPECT_EQ(as_nobody, "(unset)\n");
}

TEST_F(LibraryCheck, TheFakeDriverThatExportsTheEntryPointStillLoads) {
  const DriverLoad load = load_from(KILN_TEST_FAKE_LIBCUDA);
  EXPECT_EQ(load.failure, DriverLoadFailure::none) << load.message;
}

}  // namespace
}  // namespace kiln::driver
#endif
