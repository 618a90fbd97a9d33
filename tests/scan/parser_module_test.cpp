// clang's parser as a module of its own (scan/parser_module.hpp): kiln itself links no clang, the
// module loads and is known to the scan cache by its build ID.
#include "scan/parser_module.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
#include <string>

namespace kiln::test {
namespace {

// The NEEDED entries of `program`'s dynamic section, as readelf prints them.
std::string needed_libraries(const std::string& program) {
  std::string out;
  const std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(("readelf -d '" + program + "'").c_str(), "r"), pclose);
  if (!pipe) return "readelf did not run";
  std::array<char, 512> line{};
  while (std::fgets(line.data(), line.size(), pipe.get()))
    if (std::string(line.data()).find("(NEEDED)") != std::string::npos) out += line.data();
  return out;
}

// kiln maps clang, LLVM, NVRTC and nvJitLink only when a build parses, compiles or links with them
// (they cost 43 ms of each start): none of them is a library it links.
TEST(ParserModule, KilnLinksNoClangAndLoadsItsParserOnDemand) {
  const std::string needed = needed_libraries(KILN_EXE);
  ASSERT_NE(needed.find("libc.so"), std::string::npos) << needed;
  for (const char* heavy : {"libclang", "libLLVM", "libnvrtc", "libnvJitLink"})
    EXPECT_EQ(needed.find(heavy), std::string::npos) << heavy << ":\n" << needed;
  const Result<const scan::detail::ParserModule*> module = scan::detail::parser_module();
  ASSERT_TRUE(module.ok()) << module.error().message;
  EXPECT_NE((*module)->run_parse, nullptr);
  EXPECT_NE((*module)->make_pch, nullptr);
}

TEST(ParserModule, TheScanCacheKnowsItByItsBuildId) {
  const std::string& identity = scan::detail::parser_module_identity();
  ASSERT_TRUE(identity.starts_with("build-id ")) << identity;
  EXPECT_GE(identity.size(), std::string("build-id ").size() + 16);
}

TEST(ParserModule, ABuildIdIsReadFromTheFileAndNothingFromWhatIsNoElfFile) {
  const std::string own = scan::detail::file_build_id("/proc/self/exe");
  EXPECT_GE(own.size(), 16u);
  EXPECT_EQ(own.find_first_not_of("0123456789abcdef"), std::string::npos) << own;
  EXPECT_EQ(scan::detail::file_build_id(KILN_SCAN_FIXTURES "/cub_launch.cu"), "");
  EXPECT_EQ(scan::detail::file_build_id("/nonexistent/kiln"), "");
}

}  // namespace
}  // namespace kiln::test
