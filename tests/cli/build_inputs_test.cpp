// kiln build never overwrites its own inputs: an output or depfile that is the manifest, a kernel
// source, a header, a host or Python source, or the other output is refused with exit 2, naming
// both, and the input keeps every byte. Files are compared as files: "./x", symbolic and hard links.
#include "kiln_runner.hpp"

#include <gtest/gtest.h>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;


// The basic fixture (kernels/ops.cu includes include/ops_common.cuh and kernels/local.cuh), with a
// host and a Python source added.
fs::path project(const ScratchDir& dir) {
  const fs::path p = dir.copy_project("basic");
  write_text(p / "host.cpp", "int main() { return 0; }\n");
  write_text(p / "app.py", "print('hi')\n");
  return p;
}

// Runs `kiln build <args>` in `p` and checks the refusal: exit 2, both names in the message, `input`
// unchanged byte for byte, and no package written.
void expect_refused(const fs::path& p, const std::vector<std::string>& args, const std::string& input,
                    const std::string& output_name, const std::string& input_name) {
  const std::vector<std::byte> before = read_bytes(p / input);
  std::vector<std::string> argv{"build"};
  argv.insert(argv.end(), args.begin(), args.end());
  const RunResult r = run_kiln(argv, p, {"KILN_PYTHON=/bin/false"});
  EXPECT_EQ(r.exit_code, k_usage) << r.err;
  EXPECT_NE(r.err.find("refusing to write"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(output_name), std::string::npos) << output_name << "\n" << r.err;
  EXPECT_NE(r.err.find(input_name), std::string::npos) << input_name << "\n" << r.err;
  EXPECT_EQ(read_bytes(p / input), before) << input << " changed";
  EXPECT_FALSE(fs::exists(p / "basic.kiln"));
}

TEST(BuildInputs, OutputThatIsAKernelSourceIsRefused) {
  ScratchDir dir;
  const fs::path p = project(dir);
  expect_refused(p, {"-o", "kernels/ops.cu"}, "kernels/ops.cu", "package to kernels/ops.cu",
                 "the kernel source kernels/ops.cu");
}

TEST(BuildInputs, OutputThatIsTheManifestIsRefused) {
  ScratchDir dir;
  const fs::path p = project(dir);
  expect_refused(p, {"-o", "./kiln.toml"}, "kiln.toml", "./kiln.toml", "the manifest kiln.toml");
}

TEST(BuildInputs, DepfileThatIsAKernelSourceIsRefused) {
  ScratchDir dir;
  const fs::path p = project(dir);
  expect_refused(p, {"-o", "out.kiln", "--depfile", "kernels/more.cu"}, "kernels/more.cu",
                 "depfile to kernels/more.cu", "the kernel source kernels/more.cu");
}

TEST(BuildInputs, DepfileThatIsThePackageIsRefused) {
  ScratchDir dir;
  const fs::path p = project(dir);
  ASSERT_EQ(run_kiln({"build", "-o", "out.kiln"}, p).exit_code, 0);
  expect_refused(p, {"-o", "out.kiln", "--depfile", "./out.kiln"}, "out.kiln", "./out.kiln", "package out.kiln");
}

TEST(BuildInputs, SymbolicLinkToASourceIsRefused) {
  ScratchDir dir;
  const fs::path p = project(dir);
  fs::create_symlink("kernels/ops.cu", p / "link.cu");
  expect_refused(p, {"-o", "link.cu"}, "kernels/ops.cu", "package to link.cu", "the kernel source kernels/ops.cu");
}

TEST(BuildInputs, HardLinkToASourceIsRefused) {
  ScratchDir dir;
  const fs::path p = project(dir);
  fs::create_hard_link(p / "kernels/ops.cu", p / "hard.cu");
  expect_refused(p, {"-o", "hard.cu"}, "kernels/ops.cu", "package to hard.cu", "the kernel source kernels/ops.cu");
}

TEST(BuildInputs, HostSourceIsRefused) {
  ScratchDir dir;
  const fs::path p = project(dir);
  expect_refused(p, {"--host-source", "host.cpp", "-o", "host.cpp"}, "host.cpp", "package to host.cpp",
                 "the host source host.cpp");
}

TEST(BuildInputs, PythonSourceIsRefused) {
  ScratchDir dir;
  const fs::path p = project(dir);
  expect_refused(p, {"--python-source", "app.py", "-o", "out.kiln", "--depfile", "app.py"}, "app.py",
                 "depfile to app.py", "the Python source app.py");
}

// Headers are known only after the compiles: refused before anything is written.
TEST(BuildInputs, HeaderIsRefused) {
  ScratchDir dir;
  const fs::path p = project(dir);
  expect_refused(p, {"-o", "include/ops_common.cuh"}, "include/ops_common.cuh", "package to include/ops_common.cuh",
                 "a header the build read, include/ops_common.cuh");
  expect_refused(p, {"-o", "out.kiln", "--depfile", "kernels/local.cuh"}, "kernels/local.cuh",
                 "depfile to kernels/local.cuh", "a header the build read, kernels/local.cuh");
  EXPECT_FALSE(fs::exists(p / "out.kiln"));
}

}  // namespace
}  // namespace kiln::test
