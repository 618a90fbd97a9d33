#include "compile/diagnostics.hpp"
#include "util/diagnostic.hpp"
#include "util/printable.hpp"

#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>

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

// What reaches a terminal: C0 and C1 controls escaped, and any byte that is no part of well-formed
// UTF-8 (a lone 0x9b is CSI to a terminal reading Latin-1; so is the C1 control an overlong or
// truncated sequence would hide); UTF-8 of every length as it is.
TEST(Printable, EscapesEveryByteATerminalCouldObey) {
  EXPECT_EQ(printable("a\x1b[31m\tb\n"), "a\\x1b[31m\tb\n");
  EXPECT_EQ(printable("a\nb", NewLines::escape), "a\\x0ab");
  EXPECT_EQ(printable("\xc2\x9b" "1m"), "\\xc2\\x9b1m");
  EXPECT_EQ(printable("k\x9b" "2J"), "k\\x9b2J");
  EXPECT_EQ(printable("\xc1\x9b" "2J"), "\\xc1\\x9b2J");               // overlong: two stray bytes
  EXPECT_EQ(printable("\xe0\x82\x9b"), "\\xe0\\x82\\x9b");           // overlong three-byte form
  EXPECT_EQ(printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(printable("\xe2\x82"), "\\xe2\\x82");                     // cut short
  EXPECT_EQ(printable("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");   // past U+10FFFF
  EXPECT_EQ(printable("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5 \xc2\xa0"), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\xa5 \xc2\xa0");
  EXPECT_EQ(printable("caf\xe9.cu"), "caf\\xe9.cu");                     // Latin-1: shown as its byte
}

// nvcc and NVRTC print no column, only a caret under the source line they echo (preprocessed, two
// spaces in): the column is read from it, in the line as the file has it.
class CaretColumns : public ::testing::Test {
protected:
  CaretColumns() {
    std::string name = (std::filesystem::temp_directory_path() / "kiln-caret-XXXXXX").string();
    m_root = mkdtemp(name.data());
    std::ofstream(m_root / "k.cu") << "#define TWICE(a) ((a) + (a))\n"
                                      "extern \"C\" __global__ void k(int* x) {\n"
                                      "  x[0] = undefned_name;\n"
                                      "    x[1] = 2 +  ;\n"
                                      "\tx[2] = /* c */ TWICE(nope);\n"
                                      "  x[3] = TWICE(nope) + nope;\n"
                                      "}\n";
  }
  ~CaretColumns() override { std::filesystem::remove_all(m_root); }
  std::filesystem::path m_root;
};

TEST_F(CaretColumns, TheCaretGivesTheColumnInTheLineAsWritten) {
  // As nvcc 13.0 prints them (the echo preprocessed: "2 +  ;" is "2 + ;", the tab a space).
  const std::string log = "k.cu(3): error: identifier \"undefned_name\" is undefined\n"
                          "    x[0] = undefned_name;\n"
                          "           ^\n\n"
                          "k.cu(4): error: expected an expression\n"
                          "      x[1] = 2 + ;\n"
                          "                 ^\n\n"
                          "k.cu(5): error: identifier \"nope\" is undefined\n"
                          "   x[2] = ((nope) + (nope));\n"
                          "            ^\n\n"
                          "k.cu(6): error: identifier \"nope\" is undefined\n"
                          "    x[3] = ((nope) + (nope)) + nope;\n"
                          "             ^\n";
  const std::string out = rewrite_diagnostics(log, "p/", m_root);
  EXPECT_NE(out.find("p/k.cu:3:10: error: identifier \"undefned_name\" is undefined\n    x[0] = undefned_name;\n"),
            std::string::npos) << out;
  EXPECT_NE(out.find("p/k.cu:4:17: error: expected an expression"), std::string::npos) << out;
  // A macro's argument: the one place the word is written.
  EXPECT_NE(out.find("p/k.cu:5:23: error: identifier \"nope\""), std::string::npos) << out;
  // Written twice in the line: which one is not known, so no column rather than a wrong one.
  EXPECT_NE(out.find("p/k.cu:6: error: identifier \"nope\""), std::string::npos) << out;
}

TEST_F(CaretColumns, NoCaretOrNoFileGivesNoColumn) {
  EXPECT_EQ(rewrite_diagnostics("k.cu(3): error: e\n    x[0] = undefned_name;\n", "", m_root),
            "k.cu:3: error: e\n    x[0] = undefned_name;");
  EXPECT_EQ(rewrite_diagnostics("gone.cu(3): error: e\n  x;\n  ^\n", "", m_root), "gone.cu:3: error: e\n  x;\n  ^");
  EXPECT_EQ(rewrite_diagnostics("k.cu(3): error: e\n    x[0] = undefned_name;\n    ^\n", ""),
            "k.cu:3: error: e\n    x[0] = undefned_name;\n    ^");
  // A line past any file's end, or past what a number holds, is read as no line: nothing throws.
  EXPECT_EQ(rewrite_diagnostics("k.cu(99999999999): error: e\n  x;\n  ^\n", "", m_root),
            "k.cu:99999999999: error: e\n  x;\n  ^");
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
