#include "compile/diagnostics.hpp"

#include <gtest/gtest.h>

namespace kiln::compile {
namespace {

TEST(RewriteDiagnostics, LocationsBecomePathColonLine) {
  const std::string log =
      "kernels/a.cu(12): error: identifier \"x\" is undefined\n"
      "include/h.cuh(3): warning #177-D: variable \"y\" was declared but never referenced\n"
      "\n1 error detected in the compilation of \"kernels/a.cu\".\n";
  EXPECT_EQ(rewrite_diagnostics(log, "proj/"),
            "proj/kernels/a.cu:12: error: identifier \"x\" is undefined\n"
            "proj/include/h.cuh:3: warning #177-D: variable \"y\" was declared but never referenced\n"
            "\n1 error detected in the compilation of \"proj/kernels/a.cu\".");
}

TEST(RewriteDiagnostics, AbsolutePathsKeepTheirSpelling) {
  EXPECT_EQ(rewrite_diagnostics("/usr/local/cuda/include/x.h(7): catastrophic error: boom\n", "p/"),
            "/usr/local/cuda/include/x.h:7: catastrophic error: boom");
}

TEST(RewriteDiagnostics, OtherTextIsUntouched) {
  EXPECT_EQ(rewrite_diagnostics("note: f(3) is fine\n", "p/"), "note: f(3) is fine");
}

}  // namespace
}  // namespace kiln::compile
