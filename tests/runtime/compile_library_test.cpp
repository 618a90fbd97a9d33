// How the loader finds Kiln's compile library (core/compile_library.hpp): KILN_JIT_LIBRARY, else the
// file beside the loader; every way of not finding one is NO_COMPILER naming the file and why, and
// nothing is loaded that is not a library with the entry point; a library of another interface says so.
#include "core/compile_library.hpp"
#include "platform/library.hpp"
#include "test_process.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace kiln::testing {
namespace {

namespace fs = std::filesystem;

#if defined(_WIN32)
const char* const k_loader_name = "kiln.dll";
const char* const k_library_name = "kiln_jit.dll";
#else
const char* const k_loader_name = "libkiln.so.0";
const char* const k_library_name = "libkiln_jit.so.0";   // the SONAME, as installed
#endif

std::string message_of(const char* variable, const std::string& loader_file) {
  core::CompileLibrary* library = nullptr;
  const Status status = core::find_compile_library(variable, loader_file, library);
  EXPECT_EQ(status.error().status, KILN_STATUS_NO_COMPILER) << status.error().message;
  EXPECT_EQ(library, nullptr);
  return status.error().message;
}

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

TEST(CompileLibrary, ARelativeVariableIsRefusedUnopened) {
  const std::string message = message_of("lib/libkiln_jit.so.0", "");
  EXPECT_HAS(message, "KILN_JIT_LIBRARY is 'lib/libkiln_jit.so.0', a relative path");
}

TEST(CompileLibrary, AMissingFileIsNamed) {
  const std::string missing = (fs::temp_directory_path() / "kiln-no-such-dir" / "libkiln_jit.so.0").string();
  const std::string message = message_of(missing.c_str(), "");
  EXPECT_HAS(message, missing + " (KILN_JIT_LIBRARY): not found");
}

TEST(CompileLibrary, AFileThatIsNotALibraryIsNeverLoaded) {
  const fs::path file = fs::temp_directory_path() / ("kiln-not-a-library-" + std::to_string(kiln::test::process_id()));
  std::ofstream(file) << "not a library\n";
  const std::string message = message_of(file.string().c_str(), "");
  fs::remove(file);
  EXPECT_HAS(message, file.string() + " (KILN_JIT_LIBRARY): ");
  EXPECT_FALSE(platform::library_loaded(file.string()));
}

#if defined(KILN_TEST_NAMED_PROBE)
TEST(CompileLibrary, ALibraryWithoutTheEntryPointIsRefused) {
  const std::string message = message_of(KILN_TEST_NAMED_PROBE, "");
  EXPECT_HAS(message, KILN_TEST_NAMED_PROBE);
  EXPECT_HAS(message, "kiln_jit_compile_library");
}
#endif

TEST(CompileLibrary, WithoutTheVariableOnlyTheLoadersDirectoryIsSearched) {
  const fs::path elsewhere = fs::temp_directory_path() / "kiln-no-such-dir" / k_loader_name;
  const std::string message = message_of(nullptr, elsewhere.string());
  EXPECT_HAS(message, "looked at " + (elsewhere.parent_path() / k_library_name).string() + " (beside " +
                          elsewhere.string() + "): not found");
  EXPECT_HAS(message_of("", ""), "the loader's own file is unknown");
}

#if defined(KILN_TEST_JIT_LIBRARY)
using Entry = core::CompileLibrary* (*)(const char*);

// The entry point of the build's compile library, opened by path as any library.
Entry build_entry_point() {
  const platform::OpenedLibrary opened = platform::open_library(KILN_TEST_JIT_LIBRARY);
  EXPECT_NE(opened.handle, nullptr) << opened.error;
  return opened.handle ? reinterpret_cast<Entry>(platform::library_symbol(opened.handle, "kiln_jit_compile_library"))
                       : nullptr;
}

TEST(CompileLibrary, TheLibraryBesideTheLoaderIsFoundAndServesThisInterface) {
  core::CompileLibrary* library = nullptr;
  // The build's libkiln and compile library lie side by side, as installed.
  const fs::path beside = fs::path(KILN_TEST_JIT_LIBRARY).parent_path() / k_loader_name;
  ASSERT_TRUE(fs::exists(beside.parent_path() / k_library_name)) << beside.parent_path();
  const Status status = core::find_compile_library(nullptr, beside.string(), library);
  ASSERT_TRUE(status.ok()) << status.error().message;
  ASSERT_NE(library, nullptr);
  // The build's compile library, whose one object serves the process.
  const Entry entry = build_entry_point();
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry(core::k_compile_interface_id), library);
}

TEST(CompileLibrary, AnotherInterfaceIsAnsweredWithNothing) {
  const Entry entry = build_entry_point();
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry("kiln-compile-interface-0"), nullptr);
  EXPECT_EQ(entry(nullptr), nullptr);
  EXPECT_NE(entry(core::k_compile_interface_id), nullptr);
}
#endif

}  // namespace
}  // namespace kiln::testing
