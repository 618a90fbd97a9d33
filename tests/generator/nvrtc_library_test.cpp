// NVRTC and nvJitLink loaded when first called (compile/nvrtc_library.hpp): the facts every build needs
// without loading them, and calls that reach the libraries.
#include "compile/nvrtc_library.hpp"

#include <gtest/gtest.h>

#include <nvJitLink.h>
#include <nvrtc.h>
#include <stdlib.h>

#include <algorithm>
#include <fstream>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

TEST(NvrtcLibrary, TheFactsAreWhatTheLibrariesSay) {
  const Result<compile::NvrtcFacts> facts = compile::nvrtc_facts({});
  ASSERT_TRUE(facts.ok()) << facts.error().message;
  int major = 0, minor = 0, count = 0;
  ASSERT_EQ(nvrtcVersion(&major, &minor), NVRTC_SUCCESS);
  unsigned link_major = 0, link_minor = 0;
  ASSERT_EQ(nvJitLinkVersion(&link_major, &link_minor), NVJITLINK_SUCCESS);
  ASSERT_EQ(nvrtcGetNumSupportedArchs(&count), NVRTC_SUCCESS);
  std::vector<int> archs(static_cast<std::size_t>(count));
  ASSERT_EQ(nvrtcGetSupportedArchs(archs.data()), NVRTC_SUCCESS);
  std::sort(archs.begin(), archs.end());
  EXPECT_EQ(facts->nvrtc_major, major);
  EXPECT_EQ(facts->nvrtc_minor, minor);
  EXPECT_EQ(facts->nvjitlink_major, static_cast<int>(link_major));
  EXPECT_EQ(facts->nvjitlink_minor, static_cast<int>(link_minor));
  EXPECT_EQ(facts->archs, archs);
  EXPECT_EQ(compile::load_nvrtc(), "");
}

TEST(NvrtcLibrary, AFactsFileForOtherLibrariesIsNeverBelieved) {
  std::string name = (fs::temp_directory_path() / "kiln-facts-XXXXXX").string();
  const fs::path dir = mkdtemp(name.data());
  std::ofstream(dir / "nvrtc-facts") << "kiln-nvrtc-facts 1\n/elsewhere/libnvrtc.so.13 1 1\n99 9 99 9 10 20\n";
  const Result<compile::NvrtcFacts> facts = compile::nvrtc_facts(dir);
  ASSERT_TRUE(facts.ok()) << facts.error().message;
  EXPECT_NE(facts->nvrtc_major, 99);
  EXPECT_NE(facts->archs, (std::vector<int>{10, 20}));
  fs::remove_all(dir);
}

TEST(NvrtcLibrary, ACompileReachesTheLibrary) {
  nvrtcProgram program = nullptr;
  ASSERT_EQ(nvrtcCreateProgram(&program, "__global__ void k() {}\n", "k.cu", 0, nullptr, nullptr), NVRTC_SUCCESS);
  const char* options[] = {"-arch=compute_80"};
  EXPECT_EQ(nvrtcCompileProgram(program, 1, options), NVRTC_SUCCESS);
  std::size_t size = 0;
  EXPECT_EQ(nvrtcGetPTXSize(program, &size), NVRTC_SUCCESS);
  EXPECT_GT(size, 0u);
  EXPECT_STREQ(nvrtcGetErrorString(NVRTC_SUCCESS), "NVRTC_SUCCESS");
  EXPECT_EQ(nvrtcDestroyProgram(&program), NVRTC_SUCCESS);
}

}  // namespace
}  // namespace kiln::test
