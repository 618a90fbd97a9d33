// NVRTC and nvJitLink loaded when first called (compile/nvrtc_library.hpp): the facts every build needs
// without loading them, and calls that reach the libraries.
#include "compile/nvrtc_library.hpp"

#include <gtest/gtest.h>

#include <nvJitLink.h>
#include <nvrtc.h>

#include <algorithm>

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
