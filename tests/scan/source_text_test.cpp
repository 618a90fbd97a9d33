// The textual looks at sources: #include names, and architecture conditionals.
#include "scan/source_text.hpp"

#include <gtest/gtest.h>

namespace kiln::test {
namespace {

using namespace kiln::scan::detail;

TEST(ScanSourceText, IncludeDirectives) {
  const auto includes = include_directives(
      "#include <cuda_fp16.h>\n  #  include \"ops.cuh\" // why\n/* #include <no.h> */\n#if 0\n#include \"skipped.h\"\n#endif\n");
  ASSERT_EQ(includes.size(), 3u);
  EXPECT_EQ(includes[0].name, "cuda_fp16.h");
  EXPECT_TRUE(includes[0].angled);
  EXPECT_EQ(includes[1].name, "ops.cuh");
  EXPECT_FALSE(includes[1].angled);
  EXPECT_EQ(includes[2].name, "skipped.h");
}

TEST(ScanSourceText, ArchitectureBranches) {
  const ArchFacts facts = arch_facts(
      "#if __CUDA_ARCH__ >= 900\n"        // 1: conditional, seen
      "#elif __CUDA_ARCH__ >= 1000\n"     // 2: unseen
      "#endif\n"
      "#if 1200 <= __CUDA_ARCH__ \\\n"    // 4: continued line, reversed comparison
      "  && 1\n"
      "#endif\n"
      "// #if __CUDA_ARCH__ >= 1000\n"    // 7: a comment
      "NV_IF_TARGET(NV_PROVIDES_SM_90, (x();))\n"
      "NV_IF_TARGET(NV_HAS_FEATURE_SM_100a, (x();))\n"   // 9
      "#if defined(__CUDA_ARCH_FAMILY_SPECIFIC__) && __CUDA_ARCH_FAMILY_SPECIFIC__ == 1000\n");   // 10
  EXPECT_TRUE(facts.conditional);
  EXPECT_EQ(facts.unseen_lines, (std::vector<int>{2, 4, 9, 10}));
}

TEST(ScanSourceText, BlocksThatTestTheArchitectureSpanTheirIfToTheirEndif) {
  const ArchFacts facts = arch_facts(
      "#ifndef __CUDA_ARCH__\n"          // 1: a host-only block
      "launch();\n"
      "#endif\n"                          // 3
      "#if FAST\n"                        // 4: an #elif tests it: the whole block counts
      "#if defined(X)\n"                  // 5: nested, not testing it
      "#endif\n"
      "#elif __CUDA_ARCH__ >= 800\n"
      "#else\n"
      "#endif\n"                          // 9
      "#if OTHER\n"                       // 10: tests something else
      "#endif\n"
      "#ifdef __CUDA_ARCH__\n"            // 12: never closed: no span
      "x();\n");
  ASSERT_EQ(facts.arch_blocks.size(), 2u);
  EXPECT_EQ(facts.arch_blocks[0].first, 1);
  EXPECT_EQ(facts.arch_blocks[0].last, 3);
  EXPECT_EQ(facts.arch_blocks[1].first, 4);
  EXPECT_EQ(facts.arch_blocks[1].last, 9);
}

TEST(ScanSourceText, HostOnlyTestsAreConditionals) {
  EXPECT_TRUE(arch_facts("#ifndef __CUDA_ARCH__\nint main() {}\n#endif\n").conditional);
  EXPECT_TRUE(arch_facts("NV_IF_TARGET(NV_IS_HOST, (f();))\n").conditional);
  EXPECT_FALSE(arch_facts("__global__ void k() {}\n").conditional);
}

}  // namespace
}  // namespace kiln::test
