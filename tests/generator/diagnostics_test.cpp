#include "compile/diagnostics.hpp"
#include "util/diagnostic.hpp"

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

// The one printer: the place from Location, never from the message.
TEST(Diagnostic, PrintsThePlaceTheErrorCarries) {
  EXPECT_EQ(diagnostic(place("kiln.toml", 7, 18), "error", "unknown key 'x'"), "kiln.toml:7:18: error: unknown key 'x'");
  EXPECT_EQ(diagnostic(place("kiln.toml", 7), "warning", "w"), "kiln.toml:7: warning: w");
  EXPECT_EQ(diagnostic(place("p/k.cu"), "note", "n"), "p/k.cu: note: n");
  EXPECT_EQ(diagnostic(Location{}, "error", "no file at fault"), "kiln: error: no file at fault");
  EXPECT_EQ(position_text(place("a.cu", 3, 4)), "a.cu:3:4");
}

TEST(Diagnostic, AnErrorsLogFollowsAsItIs) {
  Error error("2 errors", place("kiln.toml", 2, 1), KILN_STATUS_INVALID_ARGUMENT, "kiln.toml:5:3: error: second");
  EXPECT_EQ(diagnostic(error), "kiln.toml:2:1: error: 2 errors\nkiln.toml:5:3: error: second");
  EXPECT_EQ(diagnostic(Error{"plain"}), "kiln: error: plain");
}

TEST(ReadLogLine, ReadsPlaceSeverityAndMessage) {
  const std::optional<LogDiagnostic> nvrtc = read_log_line("p/__nv_name_map:2: error: identifier \"flaot\" is undefined");
  ASSERT_TRUE(nvrtc);
  EXPECT_EQ(nvrtc->where.file, "p/__nv_name_map");
  EXPECT_EQ(nvrtc->where.line, 2);
  EXPECT_EQ(nvrtc->where.column, 0);
  EXPECT_EQ(nvrtc->severity, "error");
  EXPECT_EQ(nvrtc->message, "identifier \"flaot\" is undefined");

  const std::optional<LogDiagnostic> gcc = read_log_line("kernels/a.cu:3:10: fatal error: x.h: No such file");
  ASSERT_TRUE(gcc);
  EXPECT_EQ(gcc->where.file, "kernels/a.cu");
  EXPECT_EQ(gcc->where.line, 3);
  EXPECT_EQ(gcc->where.column, 10);
  EXPECT_EQ(gcc->severity, "fatal error");
  EXPECT_EQ(gcc->message, "x.h: No such file");

  const std::optional<LogDiagnostic> numbered = read_log_line("h.cuh:3: warning #177-D: unused");
  ASSERT_TRUE(numbered);
  EXPECT_EQ(numbered->severity, "warning");
  EXPECT_EQ(numbered->message, "unused");
}

TEST(ReadLogLine, OtherLinesAreNotDiagnostics) {
  for (const char* line : {"  #pragma nv_mangled_name k<flaot>", "          ^", "", "1 error detected in the compilation",
                           "error: no place", ": error: no file"})
    EXPECT_FALSE(read_log_line(line)) << line;
}

}  // namespace
}  // namespace kiln::compile
