// NVRTC and nvJitLink as the generator has them (compile/nvrtc_library.hpp): the compile library's
// table, bound to the files kiln was built against whatever the run-time compiles' variables say; the
// facts every build needs without loading them; a compile through the table.
#include "compile/nvrtc_library.hpp"
#include "test_process.hpp"

#include <gtest/gtest.h>

#include <nvJitLink.h>
#include <nvrtc.h>

#include <cstdlib>

#include <algorithm>
#include <optional>

// The table declares what it binds without CUDA's headers (the compile library builds without them):
// its values are the headers'.
static_assert(kiln::jit::k_nvjitlink_input_ltoir == NVJITLINK_INPUT_LTOIR);
static_assert(kiln::jit::k_nvjitlink_input_fatbin == NVJITLINK_INPUT_FATBIN);
static_assert(kiln::jit::k_nvjitlink_input_library == NVJITLINK_INPUT_LIBRARY);
static_assert(NVRTC_SUCCESS == 0 && NVJITLINK_SUCCESS == 0);

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

// Sets a variable for the test's span, then puts back what was there.
class ScopedVariable {
public:
  ScopedVariable(const char* name, const std::string& value) : m_name(name) {
    if (const char* old = std::getenv(name)) m_old = old;
    set_variable(name, value);
  }
  ~ScopedVariable() { m_old ? set_variable(m_name, *m_old) : unset_variable(m_name); }

private:
  const char* m_name;
  std::optional<std::string> m_old;
};

// The variables that steer run-time compiles name other libraries (none there): kiln build still
// loads the files it was built against. (Each test runs in a process of its own under ctest, so this
// is the process's first load.)
TEST(NvrtcLibrary, TheTableIsTheConfiguredFilesWhateverTheVariablesSay) {
  const fs::path nowhere = fs::temp_directory_path() / "kiln-no-such-dir";
  const ScopedVariable nvrtc("KILN_NVRTC", (nowhere / "libnvrtc.so.13").string());
  const ScopedVariable nvjitlink("KILN_NVJITLINK", (nowhere / "libnvJitLink.so.13").string());
  const ScopedVariable cuda_path("CUDA_PATH", nowhere.string());
  const ScopedVariable cuda_home("CUDA_HOME", nowhere.string());
  const Result<const jit::CompilerApi*> api = compile::nvrtc_api();
  ASSERT_TRUE(api) << api.error().message;
  EXPECT_EQ((*api)->nvrtc_path, KILN_TEST_NVRTC_LIBRARY);
  EXPECT_EQ((*api)->nvjitlink_path, KILN_TEST_NVJITLINK_LIBRARY);
  const Result<const jit::CompilerApi*> again = compile::nvrtc_api();
  ASSERT_TRUE(again);
  EXPECT_EQ(*again, *api) << "bound once per process";
  const Status loaded = compile::load_nvrtc();
  EXPECT_TRUE(loaded.ok()) << loaded.error().message;
}

TEST(NvrtcLibrary, TheFactsAreWhatTheLibrariesSay) {
  const Result<compile::NvrtcFacts> facts = compile::nvrtc_facts({});
  ASSERT_TRUE(facts.ok()) << facts.error().message;
  const Result<const jit::CompilerApi*> api = compile::nvrtc_api();
  ASSERT_TRUE(api) << api.error().message;
  int major = 0, minor = 0, count = 0;
  ASSERT_EQ((*api)->nvrtc.version(&major, &minor), 0);
  unsigned link_major = 0, link_minor = 0;
  ASSERT_EQ((*api)->nvjitlink.version(&link_major, &link_minor), 0);
  ASSERT_EQ((*api)->nvrtc.get_num_supported_archs(&count), 0);
  std::vector<int> archs(static_cast<std::size_t>(count));
  ASSERT_EQ((*api)->nvrtc.get_supported_archs(archs.data()), 0);
  std::sort(archs.begin(), archs.end());
  EXPECT_EQ(facts->nvrtc_major, major);
  EXPECT_EQ(facts->nvrtc_minor, minor);
  EXPECT_EQ(facts->nvjitlink_major, static_cast<int>(link_major));
  EXPECT_EQ(facts->nvjitlink_minor, static_cast<int>(link_minor));
  EXPECT_EQ(facts->archs, archs);
}

// A kiln whose libraries are not the files it was configured with keeps their facts in the cache
// directory; what it reads back there must have been written for the same files, and be sane.
TEST(NvrtcLibrary, AFactsFileIsBelievedOnlyForTheLibrariesItWasWrittenFor) {
  const std::string identity = "/cuda/lib/libnvrtc.so.13 109338064 1792100186\n/cuda/lib/libnvJitLink.so.13 98806736 1\n";
  compile::NvrtcFacts facts;
  facts.nvrtc_major = 13;
  facts.nvrtc_minor = 1;
  facts.nvjitlink_major = 13;
  facts.nvjitlink_minor = 1;
  facts.archs = {75, 80, 90, 120};
  const std::string file = compile::nvrtc_facts_file(identity, facts);
  const std::optional<compile::NvrtcFacts> back = compile::read_nvrtc_facts(file, identity);
  ASSERT_TRUE(back.has_value()) << file;
  EXPECT_EQ(back->nvrtc_minor, 1);
  EXPECT_EQ(back->archs, facts.archs);

  EXPECT_FALSE(compile::read_nvrtc_facts(file, "/elsewhere/libnvrtc.so.13 1 1\n"));   // other libraries
  std::string other_size = identity;
  other_size.replace(other_size.find("109338064"), 9, "109338065");
  EXPECT_FALSE(compile::read_nvrtc_facts(file, other_size));
  const std::string head = file.substr(0, file.find("13 1 13 1"));   // magic and identity
  for (const char* numbers : {"13 1 13 1\n",                 // no architecture
                              "13 1 13 1 75 80 junk\n",      // a word among the numbers
                              "-1 1 13 1 75\n",              // no NVRTC reports that
                              "13 1 13 1 75 999999\n",       // nor that
                              "thirteen\n"})
    EXPECT_FALSE(compile::read_nvrtc_facts(head + numbers, identity)) << numbers;
}

TEST(NvrtcLibrary, ACompileReachesTheLibrary) {
  const Result<const jit::CompilerApi*> api = compile::nvrtc_api();
  ASSERT_TRUE(api) << api.error().message;
  const jit::NvrtcApi& nvrtc = (*api)->nvrtc;
  jit::nvrtcProgram program = nullptr;
  ASSERT_EQ(nvrtc.create_program(&program, "__global__ void k() {}\n", "k.cu", 0, nullptr, nullptr), 0);
  const char* options[] = {"-arch=compute_80"};
  EXPECT_EQ(nvrtc.compile_program(program, 1, options), 0);
  std::size_t size = 0;
  EXPECT_EQ(nvrtc.get_ptx_size(program, &size), 0);
  EXPECT_GT(size, 0u);
  EXPECT_STREQ(nvrtc.error_string(0), "NVRTC_SUCCESS");
  EXPECT_EQ(nvrtc.destroy_program(&program), 0);
}

}  // namespace
}  // namespace kiln::test
