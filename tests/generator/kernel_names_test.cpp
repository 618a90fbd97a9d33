#include "package/kernel_names.hpp"

#include <gtest/gtest.h>

namespace kiln::package {
namespace {

TEST(CanonicalKernelName, DemangledWithoutSignature) {
  EXPECT_EQ(canonical_kernel_name("_Z9block_sumIfLi256EEvPKT_PS0_i"), "block_sum<float, 256>");
  EXPECT_EQ(canonical_kernel_name("_Z5scaleIdEvPT_S0_i"), "scale<double>");
  EXPECT_EQ(canonical_kernel_name("_Z10withstruct3BigPf"), "withstruct");
  EXPECT_EQ(canonical_kernel_name("_ZN5outer5inner6kernelEv"), "outer::inner::kernel");
}

TEST(CanonicalKernelName, ExternCAndUndemanglableNamesUnchanged) {
  EXPECT_EQ(canonical_kernel_name("saxpy"), "saxpy");
  EXPECT_EQ(canonical_kernel_name("_Znot_a_mangled_name"), "_Znot_a_mangled_name");
}

TEST(StripSignature, KeepsParenthesesInsideTemplateArguments) {
  EXPECT_EQ(strip_signature("void apply<void (*)(int)>(float*)"), "apply<void (*)(int)>");
  EXPECT_EQ(strip_signature("(anonymous namespace)::k(int)"), "(anonymous namespace)::k");
  EXPECT_EQ(strip_signature("plain"), "plain");
}

}  // namespace
}  // namespace kiln::package
