// Requests in Python sources: the embedded script run by a real interpreter on the fixtures
// (requests.py, syntax_error.py), its answers resolved against a kernel source like C++ requests,
// what happens when the interpreter misbehaves (a fake runner), and how the interpreter is chosen.
#include "scan/python_scanner.hpp"
#include "scan_fixture.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;
using namespace kiln::scan;
using Requests = std::vector<std::tuple<RuntimeRequest::What, std::string, int, int>>;
constexpr auto k_kernel = RuntimeRequest::What::kernel;
constexpr auto k_variable = RuntimeRequest::What::variable;

PythonSource fixture(const std::string& name) { return {name, fs::path(KILN_SCAN_FIXTURES) / name}; }

std::vector<ScanResult> scan_with_python(const std::vector<PythonSource>& sources) {
  Result<std::vector<ScanResult>> results = scan_python_sources(sources, KILN_TEST_PYTHON);
  if (!results) ADD_FAILURE() << results.error().message;
  return results ? std::move(*results) : std::vector<ScanResult>(sources.size());
}

Requests requests(const ScanResult& r) {
  Requests out;
  for (const RuntimeRequest& q : r.requests) out.emplace_back(q.what, q.name, q.location.line, q.location.column);
  return out;
}

// "file:line:col: message" of each warning.
std::vector<std::string> located_warnings(const ScanResult& r) {
  std::vector<std::string> out;
  for (const Diagnostic& d : r.diagnostics)
    if (d.severity == Diagnostic::Severity::warning)
      out.push_back(d.location.file + ":" + std::to_string(d.location.line) + ":" + std::to_string(d.location.column) +
                    ": " + d.message);
  return out;
}

class PythonScan : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_NE(std::string(KILN_TEST_PYTHON), "") << "CMake found no Python interpreter (KILN_PYTHON) for these tests";
  }
};

TEST_F(PythonScan, ConstantNamesInEveryFormAreRequests) {
  const std::vector<ScanResult> r = scan_with_python({fixture("requests.py")});
  ASSERT_EQ(r.size(), 1u);
  ASSERT_TRUE(r[0].ok()) << describe(r[0]);
  // An attribute chain, name=, implicit concatenation across lines, each method; lines and columns
  // of the name argument. Comments, the docstring, a string holding `.kernel("...")`, a kernel()
  // method without arguments and a plain function called kernel ask for nothing.
  EXPECT_EQ(requests(r[0]), (Requests{{k_kernel, "reduce::block_sum<float, 256u>", 17, 44},
                                      {k_kernel, "reduce::block_sum<int, 128>", 18, 40},
                                      {k_kernel, "reduce::scale<double>", 19, 55},
                                      {k_kernel, "plain", 21, 46},
                                      {k_variable, "table", 22, 44}}));
  for (const RuntimeRequest& q : r[0].requests) EXPECT_EQ(q.location.file, "requests.py");
  EXPECT_TRUE(r[0].kernels.empty() && r[0].instantiations.empty() && r[0].headers.empty());
}

TEST_F(PythonScan, NamesThatAreNotConstantsAreWarningsAtTheArgument) {
  const std::vector<ScanResult> r = scan_with_python({fixture("requests.py")});
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(located_warnings(r[0]),
            (std::vector<std::string>{
                "requests.py:23:38: the kernel name in this request to the Kiln runtime (.kernel()) is not a constant "
                "string (it is an f-string with placeholders): the scan cannot tell which kernel it asks for",
                "requests.py:24:37: the kernel name in this request to the Kiln runtime (.kernel()) is not a constant "
                "string (it is the attribute 'chosen'): the scan cannot tell which kernel it asks for"}))
      << describe(r[0]);
}

// shapes.py: CuPy's self.kernel(grid, block, args) idiom and other calls the binding's methods cannot
// take are neither requests nor warnings; calls of the binding's shape are, unless `# kiln: ignore`
// is on one of their lines.
TEST_F(PythonScan, CallsTheBindingCannotTakeAreNeitherRequestsNorWarnings) {
  const std::vector<ScanResult> r = scan_with_python({fixture("shapes.py")});
  ASSERT_EQ(r.size(), 1u);
  ASSERT_TRUE(r[0].ok()) << describe(r[0]);
  EXPECT_EQ(requests(r[0]), (Requests{{k_kernel, "reduce::scale<double>", 35, 24},
                                      {k_kernel, "reduce::block_sum<int, 128>", 36, 35},
                                      {k_kernel, "reduce::block_sum<float, 256>", 37, 27},
                                      {k_kernel, "plain", 38, 32}}));
  EXPECT_EQ(located_warnings(r[0]),
            (std::vector<std::string>{
                "shapes.py:39:25: the kernel name in this request to the Kiln runtime (.kernel()) is not a constant "
                "string (it is the attribute 'chosen'): the scan cannot tell which kernel it asks for",
                "shapes.py:40:30: the kernel name in this request to the Kiln runtime (.cupy_kernel()) is not a "
                "constant string (it is unpacked arguments (*args)): the scan cannot tell which kernel it asks for",
                "shapes.py:46:79: the kernel name in this request to the Kiln runtime (.kernel()) is not a constant "
                "string (it is an f-string with placeholders): the scan cannot tell which kernel it asks for"}))
      << describe(r[0]);
}

TEST_F(PythonScan, ASyntaxErrorIsAnErrorWithFileAndLineAndNothingElse) {
  const std::vector<ScanResult> r = scan_with_python({fixture("syntax_error.py"), fixture("requests.py")});
  ASSERT_EQ(r.size(), 2u);
  ASSERT_FALSE(r[0].ok());
  ASSERT_EQ(r[0].diagnostics.size(), 1u);
  const Diagnostic& d = r[0].diagnostics[0];
  EXPECT_EQ(d.location.file, "syntax_error.py");
  EXPECT_EQ(d.location.line, 3);
  EXPECT_EQ(d.location.column, 9);
  EXPECT_TRUE(d.message.starts_with("Python syntax error: invalid syntax (parsed by Python 3.")) << d.message;
  EXPECT_TRUE(r[0].requests.empty()) << "the request on the broken line is not reported";
  EXPECT_EQ(r[1].requests.size(), 5u) << "the other file is still scanned";
}

TEST_F(PythonScan, AnUnreadableFileIsAnErrorNamingIt) {
  const std::vector<ScanResult> r = scan_with_python({{"pkg/missing.py", "/nonexistent/pkg/missing.py"}});
  ASSERT_EQ(r.size(), 1u);
  ASSERT_EQ(r[0].diagnostics.size(), 1u);
  EXPECT_EQ(r[0].diagnostics[0].severity, Diagnostic::Severity::error);
  EXPECT_EQ(r[0].diagnostics[0].location.file, "pkg/missing.py");
  EXPECT_EQ(r[0].diagnostics[0].message, "cannot read the Python source: No such file or directory");
}

TEST_F(PythonScan, RequestsResolveAgainstAKernelSourceLikeCppOnes) {
  const ScanInput kernels = fixture_input("reduce_kernels.cu");
  const ScanResult scanned = scan_source(kernels);
  ASSERT_TRUE(scanned.ok()) << describe(scanned);
  const std::vector<ScanResult> python = scan_with_python({fixture("requests.py")});
  ASSERT_EQ(python.size(), 1u);
  const Resolution resolved = resolve_requests(kernels, scanned, python[0].requests);
  ScanResult as_result;
  as_result.instantiations = resolved.instantiations;
  EXPECT_EQ(instantiations(as_result), (std::set<std::pair<std::string, FoundBy>>{
                                           {"reduce::block_sum<float, 256>", FoundBy::runtime_request},
                                           {"reduce::block_sum<int, 128>", FoundBy::runtime_request},
                                           {"reduce::scale<double>", FoundBy::runtime_request}}));
  for (const Instantiation& i : resolved.instantiations) EXPECT_EQ(i.location.file, "requests.py");
  EXPECT_TRUE(resolved.diagnostics.empty());
}

TEST(PythonScript, TheEmbeddedScriptIsTheSourceFile) {
  std::ifstream in(KILN_PYTHON_SCRIPT_SOURCE, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_EQ(python_requests_script(), text.str());
}

// Stands in for the interpreter: records the command line, answers with `output`.
class FakeRunner final : public compile::ChildRunner {
public:
  explicit FakeRunner(Result<compile::ChildOutput> answer) : m_answer(std::move(answer)) {}
  Result<compile::ChildOutput> run(const std::vector<std::string>& argv, const compile::ChildSettings&) override {
    m_argv = argv;
    return m_answer;
  }
  std::vector<std::string> m_argv;

private:
  Result<compile::ChildOutput> m_answer;
};

const PythonInterpreter k_fake{"/opt/py/bin/python3", "python3", "PATH"};
const std::vector<PythonSource> k_two = {{"a.py", "/src/a.py"}, {"b.py", "/src/b.py"}};

std::string error_of(compile::ChildOutput output, const std::vector<PythonSource>& sources = k_two) {
  FakeRunner runner(std::move(output));
  Result<std::vector<ScanResult>> r = scan_python_sources(sources, k_fake, runner);
  return r ? std::string("no error") : r.error().message;
}

TEST(PythonScanErrors, TheInterpreterRunsIsolatedWithTheScriptAndTheFiles) {
  FakeRunner runner(compile::ChildOutput{0, "noise\nKILN-PYTHON-SCAN {\"python\": \"3.12.1\", \"files\": ["
                                            "{\"requests\": [], \"non_constant\": [], \"errors\": []},"
                                            "{\"requests\": [{\"what\": \"kernel\", \"name\": \"k\", \"line\": 2, "
                                            "\"column\": 5, \"method\": \"kernel\"}], \"non_constant\": [], "
                                            "\"errors\": []}]}\n"});
  Result<std::vector<ScanResult>> r = scan_python_sources(k_two, k_fake, runner);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(runner.m_argv, (std::vector<std::string>{"/opt/py/bin/python3", "-I", "-c",
                                                     std::string(python_requests_script()), "/src/a.py", "/src/b.py"}));
  ASSERT_EQ(r->size(), 2u);
  ASSERT_EQ((*r)[1].requests.size(), 1u);
  EXPECT_EQ((*r)[1].requests[0].location.file, "b.py");
}

TEST(PythonScanErrors, EachKindOfFileErrorHasItsMessage) {
  FakeRunner runner(compile::ChildOutput{
      0, "KILN-PYTHON-SCAN {\"python\": \"3.12.1\", \"files\": ["
         "{\"requests\": [], \"non_constant\": [], \"errors\": [{\"kind\": \"parse\", \"line\": 0, \"column\": 0, "
         "\"message\": \"maximum recursion depth exceeded\"}]},"
         "{\"requests\": [{\"what\": \"kernel\", \"name\": \"k\", \"line\": 2, \"column\": 5, \"method\": \"kernel\"}], "
         "\"non_constant\": [], \"errors\": [{\"kind\": \"read\", \"line\": 0, \"column\": 0, "
         "\"message\": \"Permission denied\"}]}]}\n"});
  Result<std::vector<ScanResult>> r = scan_python_sources(k_two, k_fake, runner);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ(describe((*r)[0]), "a.py:0:0: Python cannot parse the file: maximum recursion depth exceeded (Python 3.12.1)\n");
  EXPECT_EQ(describe((*r)[1]), "b.py:0:0: cannot read the Python source: Permission denied\n");
  EXPECT_TRUE((*r)[1].requests.empty()) << "nothing but the error from a file with one";
}

TEST(PythonScanErrors, AnInterpreterThatCannotStart) {
  FakeRunner runner(Error{"cannot run /opt/py/bin/python3: Permission denied"});
  Result<std::vector<ScanResult>> r = scan_python_sources(k_two, k_fake, runner);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message, "cannot scan a.py, b.py for requests to the Kiln runtime: cannot run the Python "
                               "interpreter 'python3' (PATH): Permission denied");
}

TEST(PythonScanErrors, AnInterpreterThatDoesNotAnswerShowsItsLastLines) {
  const std::string message =
      error_of({1, "Traceback (most recent call last):\n  File \"<string>\", line 1\nSyntaxError: bad input\n"});
  EXPECT_EQ(message, "cannot scan a.py, b.py for requests to the Kiln runtime: the Python interpreter 'python3' (PATH) "
                     "did not run Kiln's scanner (exit code 1): Traceback (most recent call last):\n  File "
                     "\"<string>\", line 1\nSyntaxError: bad input");
}

TEST(PythonScanErrors, AProgramThatIsNotPythonAndPrintsNothing) {
  EXPECT_EQ(error_of({0, ""}), "cannot scan a.py, b.py for requests to the Kiln runtime: the Python interpreter "
                               "'python3' (PATH) did not run Kiln's scanner (exit code 0): it printed nothing");
}

TEST(PythonScanErrors, AnOldPython) {
  EXPECT_EQ(error_of({0, "KILN-PYTHON-SCAN {\"python\": \"3.6.9\", \"unsupported\": \"Python 3.8 or later is needed\", "
                         "\"files\": []}\n"}),
            "cannot scan a.py, b.py for requests to the Kiln runtime: the Python interpreter 'python3' (PATH) is "
            "Python 3.6.9; Python 3.8 or later is needed");
}

TEST(PythonScanErrors, AMalformedAnswer) {
  EXPECT_NE(error_of({0, "KILN-PYTHON-SCAN {\"python\": \"3.12.1\", \"files\": [{}]}\n"})
                .find("the scanner answered for 1 files, not 2"),
            std::string::npos);
  EXPECT_NE(error_of({0, "KILN-PYTHON-SCAN {\"python\": \"3.12.1\", \"files\": [{\"requests\": 1}, {}]}\n"})
                .find("the scanner's answer from 'python3' (PATH) is malformed"),
            std::string::npos);
  EXPECT_NE(error_of({0, "KILN-PYTHON-SCAN not json\n"}).find("is malformed"), std::string::npos);
}

TEST(PythonScanErrors, ManyFilesAreNamedByTheFirstThree) {
  const std::vector<PythonSource> five = {{"a.py", "a.py"}, {"b.py", "b.py"}, {"c.py", "c.py"}, {"d.py", "d.py"},
                                          {"e.py", "e.py"}};
  EXPECT_TRUE(error_of({1, ""}, five).starts_with("cannot scan a.py, b.py, c.py and 2 more for requests"));
}

TEST(PythonScanErrors, NoSourcesRunNothing) {
  FakeRunner runner(Error{"must not run"});
  Result<std::vector<ScanResult>> r = scan_python_sources({}, k_fake, runner);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->empty());
  EXPECT_TRUE(runner.m_argv.empty());
}

// Sets an environment variable for one test and restores it.
class ScopedEnv {
public:
  ScopedEnv(const char* name, const char* value) : m_name(name) {
    if (const char* old = std::getenv(name)) m_old = old;
    value ? setenv(name, value, 1) : unsetenv(name);
  }
  ~ScopedEnv() { m_old ? setenv(m_name, m_old->c_str(), 1) : unsetenv(m_name); }

private:
  const char* m_name;
  std::optional<std::string> m_old;
};

// A directory holding an executable `name`, for PATH lookups.
fs::path bin_with(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("kiln-python-bin-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / name) << "#!/bin/sh\n";
  ::chmod((dir / name).c_str(), 0755);
  std::ofstream(dir / "not-executable") << "";
  return dir;
}

TEST(FindPython, ThePythonFlagWinsAndAPathIsTakenAsIs) {
  const ScopedEnv env("KILN_PYTHON", "/from/env/python");
  Result<PythonInterpreter> p = find_python("/opt/python/bin/python3.12");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->program, "/opt/python/bin/python3.12");
  EXPECT_EQ(p->describe(), "'/opt/python/bin/python3.12' (--python)");
}

TEST(FindPython, ThenKilnPythonThenPython3OnPath) {
  const fs::path bin = bin_with("python3");
  const ScopedEnv path("PATH", bin.c_str());
  {
    const ScopedEnv env("KILN_PYTHON", "/from/env/python");
    Result<PythonInterpreter> p = find_python("");
    ASSERT_TRUE(p);
    EXPECT_EQ(p->describe(), "'/from/env/python' ($KILN_PYTHON)");
  }
  const ScopedEnv env("KILN_PYTHON", nullptr);
  Result<PythonInterpreter> p = find_python("");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->program, (bin / "python3").string());
  EXPECT_EQ(p->describe(), "'python3' (PATH)");
  fs::remove_all(bin);
}

TEST(FindPython, BareNamesAreLookedUpOnPathAndMissesSayWhere) {
  const fs::path bin = bin_with("mypython");
  const ScopedEnv path("PATH", ("/nonexistent/dir:" + bin.string()).c_str());
  const ScopedEnv env("KILN_PYTHON", nullptr);
  Result<PythonInterpreter> p = find_python("mypython");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->program, (bin / "mypython").string());
  Result<PythonInterpreter> missing = find_python("not-executable");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "the Python interpreter 'not-executable' (--python) is not on PATH "
                                     "(PATH=/nonexistent/dir:" + bin.string() + ")");
  Result<PythonInterpreter> none = find_python("");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message, "no Python interpreter: --python is not given, $KILN_PYTHON is not set and python3 "
                                  "is not on PATH (PATH=/nonexistent/dir:" + bin.string() + ")");
  fs::remove_all(bin);
}

}  // namespace
}  // namespace kiln::test
