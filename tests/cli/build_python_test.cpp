// kiln build with Python sources (tests/fixtures/projects/python): the kernel names pkg/ops.py asks
// the Kiln binding for are found by Python's parser and built like C++ host requests; the .py files
// are in the depfile; a missing file, a syntax error and a missing interpreter are errors that name
// the file and the interpreter.
#include "kiln_runner.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;
using Names = std::set<std::string>;


class BuildPython : public ::testing::Test {
protected:
  BuildPython() : m_project(m_dir.copy_project("python")) {}

  void SetUp() override {
    ASSERT_NE(std::string(KILN_TEST_PYTHON), "") << "CMake found no Python interpreter (KILN_PYTHON) for these tests";
  }

  RunResult build(std::vector<std::string> extra = {}, const std::string& python = KILN_TEST_PYTHON) const {
    std::vector<std::string> args = {"build", "-o", "../python.kiln", "--python", python};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_kiln(args, m_project);
  }

  // The kernels `kiln inspect --json` lists, by the name it shows (the canonical spelling).
  Names package_names() const {
    const RunResult r = run_kiln({"inspect", "--json", "python.kiln"}, m_dir.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    Names names;
    const nlohmann::json report = nlohmann::json::parse(r.out);
    for (const nlohmann::json& k : report["kernels"]) names.insert(k["name"].get<std::string>());
    return names;
  }

  ScratchDir m_dir;
  fs::path m_project;
};

TEST_F(BuildPython, InstantiationsOnlyPythonAsksForAreInThePackage) {
  const RunResult r = build();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Names names = package_names();
  EXPECT_EQ(names, (Names{"scale<float, 4>", "scale<int, 2>", "saxpy"})) << "scale<double, 8> is in a comment";
  // fill is a template nothing instantiates, Python code included.
  EXPECT_NE(r.err.find("kernel template 'fill' is never instantiated"), std::string::npos) << r.err;
}

TEST_F(BuildPython, NonConstantAndUnknownNamesAreWarningsAtTheirLines) {
  const RunResult r = build();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("pkg/ops.py:18:33: warning: the kernel name in this request to the Kiln runtime "
                       "(.cupy_kernel()) is not a constant string (it is an f-string with placeholders)"),
            std::string::npos) << r.err;
  EXPECT_NE(r.err.find("pkg/ops.py:22:28: warning: the runtime request for kernel 'no_such_kernel' names no kernel "
                       "of the kernel sources"),
            std::string::npos) << r.err;
}

// CuPy's idiom (a wrapper calling the cupy.RawKernel it holds as self.kernel(grid, block, args)) is no
// request and no warning, and `# kiln: ignore` silences a name the scan cannot read, so --strict
// passes on a package that uses both; a request the package cannot satisfy still fails it, at its line.
TEST_F(BuildPython, StrictPassesOnCupyCodeAndFailsOnARequestNoKernelSatisfies) {
  const std::string ops =
      "import kiln\n"
      "_package = kiln.open('python.kiln')\n"
      "\n"
      "class _cupy_scale_wrapper(object):\n"
      "    def __init__(self, grid, block, kernel):\n"
      "        self.grid, self.block, self.kernel = grid, block, kernel\n"
      "\n"
      "    def __call__(self, data, factor):\n"
      "        self.kernel(self.grid, self.block, (data, factor, data.shape[0]))\n"
      "\n"
      "def kernels(dtype):\n"
      "    return (_package.kernel('scale<float, 4>'), _package.cuda_core_kernel('fill<int>', 0),\n"
      "            _package.cupy_kernel(f'scale<{dtype}, 4>'))  # kiln: ignore (listed in INSTANTIATE)\n";
  write_text(m_project / "pkg/ops.py", ops);
  const RunResult passes = build({"--strict"});
  EXPECT_EQ(passes.exit_code, 0) << passes.err;
  EXPECT_EQ(passes.err.find("ops.py"), std::string::npos) << passes.err;
  EXPECT_EQ(package_names(), (Names{"scale<float, 4>", "fill<int>", "saxpy"}));

  write_text(m_project / "pkg/ops.py", ops + "\ndef missing():\n    return _package.image('no_such_kernel', arch=80)\n");
  const RunResult fails = build({"--strict"});
  EXPECT_NE(fails.exit_code, 0) << fails.err;
  EXPECT_NE(fails.err.find("pkg/ops.py:16:27: error: the runtime request for kernel 'no_such_kernel' names no "
                           "kernel of the kernel sources"),
            std::string::npos) << fails.err;
}

TEST_F(BuildPython, TheDepfileListsThePythonSources) {
  ASSERT_EQ(build().exit_code, 0);
  const std::string depfile = read_text(m_dir.path() / "python.kiln.d");
  EXPECT_NE(depfile.find((fs::canonical(m_project) / "pkg/ops.py").string()), std::string::npos) << depfile;
}

TEST_F(BuildPython, PythonSourcesCanComeFromTheCommandLine) {
  write_text(m_project / "tools/extra.py", "import kiln\nkiln.open('python.kiln').kernel(\"fill<double>\")\n");
  const RunResult r = build({"--python-source", "tools/extra.py", "-v"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("'fill' is never instantiated"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(", 2 Python sources read"), std::string::npos) << r.err;
  EXPECT_TRUE(package_names().count("fill<double>"));
  EXPECT_NE(read_text(m_dir.path() / "python.kiln.d").find("tools/extra.py"), std::string::npos);
}

TEST_F(BuildPython, WithoutTheFlagTheInterpreterIsKilnPython) {
  const std::vector<std::string> args = {"build", "-o", "../python.kiln"};
  EXPECT_EQ(run_kiln(args, m_project, {std::string("KILN_PYTHON=") + KILN_TEST_PYTHON}).exit_code, 0);
  const RunResult wrong = run_kiln(args, m_project, {"KILN_PYTHON=/nonexistent/python-from-env"});
  EXPECT_EQ(wrong.exit_code, k_environment) << wrong.err;
  EXPECT_NE(wrong.err.find("the Python interpreter '/nonexistent/python-from-env' ($KILN_PYTHON): No such file"),
            std::string::npos) << wrong.err;
  // --python wins over $KILN_PYTHON.
  std::vector<std::string> flagged = args;
  flagged.insert(flagged.end(), {"--python", KILN_TEST_PYTHON});
  EXPECT_EQ(run_kiln(flagged, m_project, {"KILN_PYTHON=/nonexistent/python-from-env"}).exit_code, 0);
}

TEST_F(BuildPython, AMissingInterpreterIsAnEnvironmentErrorNamingItAndTheFiles) {
  const RunResult r = build({}, "/nonexistent/python3");
  EXPECT_EQ(r.exit_code, k_environment);
  EXPECT_NE(r.err.find("kiln: error: cannot scan pkg/ops.py for requests to the Kiln runtime: cannot run the Python "
                       "interpreter '/nonexistent/python3' (--python): No such file or directory; no package written"),
            std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(m_dir.path() / "python.kiln"));
}

TEST_F(BuildPython, ASyntaxErrorLosesTheFilesRequestsWithAWarningNamingFileAndLine) {
  write_text(m_project / "pkg/ops.py", "import kiln\n\nk = = kiln.open('x').kernel('scale<float, 4>')\n");
  const RunResult r = run_kiln({"build", "project/kiln.toml", "-o", "python.kiln", "--python", KILN_TEST_PYTHON},
                               m_dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("project/pkg/ops.py: warning: the scan cannot read this Python source, so the requests to the "
                       "Kiln binding in it are not discovered; Python's first error: project/pkg/ops.py:3:5: Python "
                       "syntax error: invalid syntax (parsed by Python "),
            std::string::npos) << r.err;
  EXPECT_TRUE(fs::exists(m_dir.path() / "python.kiln"));
}

TEST_F(BuildPython, ASyntaxErrorFailsAStrictBuild) {
  write_text(m_project / "pkg/ops.py", "import kiln\n\nk = = kiln.open('x').kernel('scale<float, 4>')\n");
  const RunResult r = run_kiln(
      {"build", "project/kiln.toml", "-o", "python.kiln", "--python", KILN_TEST_PYTHON, "--strict"}, m_dir.path());
  EXPECT_EQ(r.exit_code, k_failed);
  EXPECT_NE(r.err.find("project/pkg/ops.py: error: the scan cannot read this Python source"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("with --strict; no package written"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(m_dir.path() / "python.kiln"));
}

TEST_F(BuildPython, AMissingPythonSourceIsAManifestError) {
  fs::remove(m_project / "pkg/ops.py");
  const RunResult r = build();
  EXPECT_EQ(r.exit_code, k_bad_input);
  EXPECT_NE(r.err.find("kiln.toml:5:19: error: Python source path 'pkg/ops.py' does not exist (looked for "), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace kiln::test
