// `kiln scan` end to end: the summary, --json, and exit codes, for CUDA, C++ and Python files.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

struct KilnRun {
  int exit_code = -1;
  std::string out, err;
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs kiln in the fixtures directory; arguments need no quoting here.
KilnRun kiln(const std::string& arguments) {
  const fs::path dir = fs::temp_directory_path() / ("kiln-scan-cli-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string command = "cd " KILN_SCAN_FIXTURES " && " KILN_EXE " " + arguments + " >" + (dir / "out").string() +
                              " 2>" + (dir / "err").string();
  const int status = std::system(command.c_str());
  KilnRun r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(dir / "out"), slurp(dir / "err")};
  fs::remove_all(dir);
  return r;
}

TEST(ScanCli, SummaryOfAKernelSource) {
  const KilnRun r = kiln("scan -I include header_template.cu");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("header_template.cu (device code only)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("template <typename T> blas::axpy(T a, const T * x, T * y, int n)  include/axpy.cuh:9:17"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("blas::axpy<double>  explicit_instantiation  header_template.cu:5:32"), std::string::npos);
}

TEST(ScanCli, JsonResolvesHostRequestsAcrossFiles) {
  const KilnRun r = kiln("scan --json -I " KILN_RUNTIME_INCLUDE " reduce_kernels.cu --host requests_host.cpp");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["files"].size(), 2u);
  EXPECT_EQ(j["files"][0]["file"], "reduce_kernels.cu");
  EXPECT_EQ(j["files"][0]["role"], "kernels");
  EXPECT_EQ(j["files"][1]["role"], "host");
  std::set<std::string> names;
  for (const auto& i : j["files"][0]["result"]["instantiations"]) {
    EXPECT_EQ(i["found_by"], "runtime_request");
    names.insert(i["name_expression"].get<std::string>());
  }
  EXPECT_EQ(names, (std::set<std::string>{"reduce::block_sum<float, 256>", "reduce::block_sum<int, 128>",
                                          "reduce::scale<double>"}));
  // The non-constant request and the one that does not resolve, on stderr with their locations.
  EXPECT_NE(r.err.find("requests_host.cpp:16:37: warning:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("requests_host.cpp:15:35: warning:"), std::string::npos) << r.err;
}

TEST(ScanCli, ParseErrorExitsOneWithClangsDiagnostic) {
  const KilnRun r = kiln("scan syntax_error.cu nvrtc_style.cu");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("syntax_error.cu:3:27: error: expected ';' after expression"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("syntax_error.cu ("), std::string::npos);     // no results from that file
  EXPECT_NE(r.out.find("nvrtc_style.cu (device code only)"), std::string::npos);   // the others still scanned
}

TEST(ScanCli, PythonFilesAreReadByPythonAndTheirRequestsResolved) {
  const KilnRun r = kiln("scan --json --python " KILN_TEST_PYTHON " reduce_kernels.cu requests.py");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["files"].size(), 2u);
  EXPECT_EQ(j["files"][1]["file"], "requests.py");
  EXPECT_EQ(j["files"][1]["role"], "python");
  EXPECT_EQ(j["files"][1]["result"]["requests"].size(), 5u);
  EXPECT_EQ(j["files"][1]["result"]["requests"][0]["location"]["line"], 17);
  std::set<std::string> names;
  for (const auto& i : j["files"][0]["result"]["instantiations"]) {
    EXPECT_EQ(i["found_by"], "runtime_request");
    EXPECT_EQ(i["location"]["file"], "requests.py");
    names.insert(i["name_expression"].get<std::string>());
  }
  EXPECT_EQ(names, (std::set<std::string>{"reduce::block_sum<float, 256>", "reduce::block_sum<int, 128>",
                                          "reduce::scale<double>"}));
  EXPECT_NE(r.err.find("requests.py:23:38: warning: the kernel name in this request to the Kiln runtime (.kernel()) "
                       "is not a constant string"),
            std::string::npos) << r.err;
}

TEST(ScanCli, SummaryOfAPythonFile) {
  const KilnRun r = kiln("scan --python " KILN_TEST_PYTHON " requests.py");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("requests.py (Python)\n  runtime requests:\n"
                       "    kernel \"reduce::block_sum<float, 256u>\"  requests.py:17:44\n"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    variable \"table\"  requests.py:22:44\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("headers"), std::string::npos) << r.out;
}

TEST(ScanCli, PythonSyntaxErrorExitsOneWithFileAndLine) {
  const KilnRun r = kiln("scan --python " KILN_TEST_PYTHON " syntax_error.py requests.py");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("syntax_error.py:3:9: error: Python syntax error: invalid syntax"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.find("syntax_error.py ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("requests.py (Python)"), std::string::npos) << r.out;
}

TEST(ScanCli, NoPythonInterpreterIsAnEnvironmentError) {
  const KilnRun r = kiln("scan --python /nonexistent/python3 requests.py");
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.err.find("kiln: error: cannot scan requests.py for requests to the Kiln runtime: cannot run the Python "
                       "interpreter '/nonexistent/python3' (--python): No such file or directory"),
            std::string::npos) << r.err;
}

TEST(ScanCli, UsageErrors) {
  EXPECT_EQ(kiln("scan").exit_code, 2);
  EXPECT_EQ(kiln("scan --no-such-flag x.cu").exit_code, 2);
}

}  // namespace
}  // namespace kiln::test

namespace kiln::test {
namespace {

TEST(ScanCli, OptionsThatChangeTheLanguageApplyToTheScan) {
  // Without -default-device, clang sees a kernel calling a host function.
  EXPECT_EQ(kiln("scan default_device.cu").exit_code, 1);
  const KilnRun r = kiln("scan --option=-default-device default_device.cu");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("default_device.cu (device code only)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("extern \"C\" doubled(float * x)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("only_with_the_macro"), std::string::npos) << r.out;
  const KilnRun with_macro = kiln("scan --option=-default-device --option=-DKILN_SCAN_OPTION default_device.cu");
  ASSERT_EQ(with_macro.exit_code, 0) << with_macro.err;
  EXPECT_NE(with_macro.out.find("only_with_the_macro"), std::string::npos) << with_macro.out;
}

TEST(ScanCli, HostSourcesFindKilnsHeaderAtAStandardItCanUse) {
  // No -I for <kiln/kiln.hpp>, and kernels at C++14: the host source is still read at C++17.
  const KilnRun r = kiln("scan --std c++14 --json reduce_kernels.cu --host requests_host.cpp");
  EXPECT_EQ(r.err.find("kiln/kiln.hpp' file not found"), std::string::npos) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["files"][1]["role"], "host");
  EXPECT_FALSE(j["files"][1]["result"]["requests"].empty()) << r.err;
}

TEST(ScanCli, AnOptionTheManifestWouldRefuseIsAUsageError) {
  const KilnRun r = kiln("scan --option=-arch=sm_90 default_device.cu");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("kiln: error: scan: option '-arch=sm_90' is set by Kiln for each target"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace kiln::test
