// The nvcc path without running nvcc: its command line, the source copy that adds instantiations,
// depfile parsing, and what becomes of nvcc's messages and outputs (through a stand-in runner).
#include "compile/nvcc_compiler.hpp"
#include "util/plain_names.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <random>

namespace kiln::compile {
namespace {

namespace fs = std::filesystem;
using Strings = std::vector<std::string>;

CompileJob job() {
  CompileJob j;
  j.root = "/p";
  j.source = "kernels/a.cu";
  j.display_prefix = "p/";
  j.target = "sm_80";
  j.compiler = Compiler::nvcc;
  j.nvcc = "/opt/cuda/bin/nvcc";
  j.nvcc_options = {"-Iinclude", "-DN=4"};
  j.work_dir = "/s/nvcc-0";
  return j;
}

TEST(InstantiationWrapper, TheSourceThenATableOfAddressesWithTheirOrigins) {
  CompileJob j = job();
  EXPECT_EQ(instantiation_wrapper("int x;", j), "#line 1 \"kernels/a.cu\"\nint x;");
  j.name_expressions = {"scale<float>", "ns::k<int, 2>"};
  j.expression_origins = {{"kiln.toml", 7}, {"src/app.cpp", 12}};
  EXPECT_EQ(instantiation_wrapper("int x;", j),
            "#line 1 \"kernels/a.cu\"\nint x;\n"
            "__attribute__((unused)) static void* const __kiln_instantiations[] = {\n"
            "#line 7 \"kiln.toml\"\n  (void*)&scale<float>,\n"
            "#line 12 \"src/app.cpp\"\n  (void*)&ns::k<int, 2>,\n};\n");
}

TEST(LineMarkerFiles, EveryFileOnceInOrderUnescapedWithoutTheCompilersOwn) {
  EXPECT_EQ(line_marker_files("# 1 \"k.cu\"\n# 1 \"<built-in>\"\n# 1 \"<command-line>\"\nint a;\n"
                              "# 1 \"/p/my dir/h.cuh\" 1 3\n#line 7 \"q\\\"uote\\\\x.h\"\n# 4 \"k.cu\" 2\n"
                              "# 2 \"a\\012b.h\"\n#pragma once\n#  define X \"y.h\"\n"),
            (Strings{"k.cu", "/p/my dir/h.cuh", "q\"uote\\x.h", "a\nb.h"}));
  EXPECT_TRUE(line_marker_files("# 1 \"unterminated\n").empty());
}

TEST(DepfilePrerequisites, EscapesAndContinuations) {
  EXPECT_EQ(depfile_prerequisites("/s/o.cubin : /s/src/a.cu \\\n    /p/my\\ dir/h.cuh \\\n  /usr/include/x.h\n"),
            (Strings{"/s/src/a.cu", "/p/my dir/h.cuh", "/usr/include/x.h"}));
  EXPECT_EQ(depfile_prerequisites("o.cubin: a.cu b$$.h\n"), (Strings{"a.cu", "b$.h"}));
}

// Stands in for nvcc: remembers the command line, writes what it is told to, prints `output`.
class FakeNvcc final : public ChildRunner {
public:
  Result<ChildOutput> run(const std::vector<std::string>& argv, const ChildSettings& settings) override {
    m_argv = argv;
    m_settings = settings;
    const auto at = [&](const std::string& flag) { return *(std::find(argv.begin(), argv.end(), flag) + 1); };
    const auto in_directory = [&](const std::string& path) { return settings.directory / path; };
    // What nvcc would read of the workspace's own files, before they are gone.
    m_input = read(in_directory(argv.back()));
    for (std::size_t i = 0; i + 1 < argv.size(); ++i)
      if (argv[i] == "-Xcompiler" && argv[i + 1].starts_with("-include,")) m_macros = read(in_directory(argv[i + 1].substr(9)));
    if (m_exit_code == 0) {
      std::ofstream(in_directory(at("-o")), std::ios::binary) << "IMAGE";
      // The preprocessed device code nvcc keeps: a line marker for the input, then one per header.
      std::ofstream ii(in_directory(at("-keep-dir")) / "a.cpp1.ii");
      ii << "# 1 \"" << argv.back() << "\"\n# 1 \"<built-in>\"\n";
      std::istringstream headers(m_headers);
      for (std::string header; headers >> header;) ii << "# 1 \"" << header << "\" 1\nint x;\n";
    }
    return ChildOutput{m_exit_code, m_output};
  }
  static std::string read(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  Strings m_argv;
  ChildSettings m_settings;
  std::string m_input, m_macros;
  int m_exit_code = 0;
  std::string m_output;
  std::string m_headers;
};

class NvccCompile : public ::testing::Test {
protected:
  NvccCompile() {
    m_dir = fs::temp_directory_path() / ("kiln-nvcc-test-" + std::to_string(getpid()) + "-" +
                                         std::to_string(std::random_device{}()));
    fs::create_directories(m_dir / "p/kernels");
    fs::create_directories(m_dir / "cuda/bin");
    std::ofstream(m_dir / "cuda/bin/nvcc") << "#!/bin/sh\n";
    std::ofstream(m_dir / "p/kernels/a.cu") << "__global__ void k() {}\n";
    m_job = job();
    m_job.root = m_dir / "p";
    m_job.nvcc = m_dir / "cuda/bin/nvcc";
    m_job.work_dir = m_dir / "work";
    m_job.nvcc_options = {"-I" + (m_dir / "cuda/include").string()};
    m_previous = fs::current_path();
    fs::current_path(m_job.root);  // as in a worker
  }
  ~NvccCompile() override {
    fs::current_path(m_previous);
    std::error_code ignored;
    fs::remove_all(m_dir, ignored);
  }
  fs::path m_dir, m_previous;
  CompileJob m_job;
  FakeNvcc m_nvcc;
};

TEST_F(NvccCompile, ErrorsPointAtTheSourceFromTheUsersDirectory) {
  m_job.name_expressions = {"k<int>"};
  m_job.expression_origins = {{"kiln.toml", 4}};
  m_nvcc.m_exit_code = 1;
  const std::string copy = (m_dir / "work/src/kernels/a.cu").string();
  m_nvcc.m_output = "kernels/a.cu(3): error: identifier \"y\" is undefined\n"
                    "kiln.toml(4): error: no instance of function template \"k\" matches\n"
                    "In file included from kernels/a.cu:1:\n"
                    "kernels/h.cuh:2:10: fatal error: nope.h: No such file or directory\n"
                    "2 errors detected in the compilation of \"" + copy + "\".\n";
  const CompileOutput out = compile_with_nvcc(m_job, m_nvcc);
  EXPECT_FALSE(out.ok);
  EXPECT_EQ(out.log, "p/kernels/a.cu:3: error: identifier \"y\" is undefined\n"
                     "p/kiln.toml:4: error: no instance of function template \"k\" matches\n"
                     "In file included from p/kernels/a.cu:1:\n"
                     "p/kernels/h.cuh:2:10: fatal error: nope.h: No such file or directory\n"
                     "2 errors detected in the compilation of \"p/kernels/a.cu\".");
  EXPECT_EQ(m_nvcc.m_argv.back(), copy) << "name expressions compile through the copy";
}

TEST_F(NvccCompile, ImageAndTheProjectsOwnHeaders) {
  m_job.target = "compute_100f";   // nvcc's own PTX: no link step, which a stand-in cannot feed
  fs::create_directories(m_dir / "cuda/include");
  std::ofstream(m_dir / "p/kernels/local.cuh") << "";
  std::ofstream(m_dir / "cuda/include/cuda_runtime.h") << "";
  m_nvcc.m_headers = (m_dir / "p/kernels/local.cuh").string() + " /usr/include/stdio.h " +
                     (m_dir / "cuda/bin/../include/cuda_runtime.h").string();
  const CompileOutput out = compile_with_nvcc(m_job, m_nvcc);
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_EQ(out.image.size(), 6u) << "the PTX with its NUL";
  EXPECT_EQ(m_nvcc.m_argv.back(), "kernels/a.cu") << "without name expressions the source itself compiles";
  EXPECT_EQ(out.headers, (Strings{(m_dir / "p/kernels/local.cuh").string(), (m_dir / "cuda/include/cuda_runtime.h").string()}));
  EXPECT_FALSE(fs::exists(m_job.work_dir)) << "the work directory is cleaned up";
}

// Every argument nvcc gets is one its shell reads as it is (nvcc_workspace.hpp).
void expect_plain(const Strings& argv) {
  for (const std::string& arg : argv) EXPECT_TRUE(is_plain_option(arg)) << "not plain: " << arg;
}

std::string tmpdir_of(const ChildSettings& settings) {
  for (const std::string& e : settings.environment)
    if (e.starts_with("TMPDIR=")) return e.substr(7);
  return "";
}

TEST_F(NvccCompile, ACubinAsNvccCubinWritesItWithReproducibleNamesInTheRoot) {
  m_job.nvcc_options.push_back("-DN=4");
  const CompileOutput out = compile_with_nvcc(m_job, m_nvcc);
  const std::string work = m_job.work_dir.string();
  EXPECT_EQ(m_nvcc.m_argv,
            (Strings{m_job.nvcc.string(), "-cubin", "-arch=sm_80", "-o", work + "/image.cubin", "-keep", "-keep-dir",
                     work + "/kept", "-frandom-seed=kernels/a.cu", "-Xcicc", "--orig_src_path_name=kernels/a.cu",
                     "-I" + (m_dir / "cuda/include").string(), "-DN=4", "kernels/a.cu"}));
  EXPECT_EQ(m_nvcc.m_settings.directory, m_job.root) << "nvcc runs in the root, which is plain";
  EXPECT_EQ(tmpdir_of(m_nvcc.m_settings), work + "/tmp") << "nvcc's temporary files stay in the workspace";
  // PTX targets get nvcc's PTX, variants keep their suffix.
  for (const auto& [target, expected] : {std::pair{"sm_90a", "-arch=sm_90a"}, std::pair{"compute_90a", "-arch=compute_90a"},
                                         std::pair{"compute_100f", "-arch=compute_100f"}}) {
    m_job.target = target;
    (void)compile_with_nvcc(m_job, m_nvcc);
    EXPECT_EQ(m_nvcc.m_argv[1], m_job.target.starts_with("sm_") ? "-cubin" : "-ptx") << target;
    EXPECT_EQ(m_nvcc.m_argv[2], expected) << target;
  }
}

// A link group's member and an image part after the first need nvJitLink: LTO-IR for it. Family PTX
// still comes from nvcc (nvJitLink would drop the suffix).
TEST_F(NvccCompile, JobsTheLinkMustSeeCompileToLtoIr) {
  for (const bool member : {true, false}) {
    m_job.relocatable = member;
    m_job.link_named_kernels_only = !member;
    for (const auto& [target, expected] : {std::pair{"sm_90a", "arch=compute_90a,code=lto_90a"},
                                           std::pair{"compute_90a", "arch=compute_90a,code=lto_90a"},
                                           std::pair{"compute_100f", "-arch=compute_100f"}}) {
      m_job.target = target;
      (void)compile_with_nvcc(m_job, m_nvcc);
      if (m_job.target == "compute_100f") {
        EXPECT_EQ(m_nvcc.m_argv[2], expected);
        continue;
      }
      EXPECT_EQ((Strings{m_nvcc.m_argv.begin() + 1, m_nvcc.m_argv.begin() + 5}), (Strings{"-fatbin", "-dc", "-gencode", expected}))
          << target;
    }
  }
}

// One nvcc run for a unit's targets: one -gencode each, --threads as given, nvcc's files kept apart.
TEST_F(NvccCompile, AUnitsTargetsShareOneRunWithAGencodeEach) {
  std::vector<CompileJob> jobs;
  for (const char* target : {"sm_80", "sm_90", "compute_90"}) {
    jobs.push_back(m_job);
    jobs.back().target = target;
  }
  Result<NvccWorkspace> workspace = NvccWorkspace::create(m_job);
  ASSERT_TRUE(workspace) << workspace.error().message;
  const Result<Strings> args = nvcc_arguments(jobs, 2, *workspace, "kernels/a.cu", false);
  ASSERT_TRUE(args) << args.error().message;
  const std::string work = m_job.work_dir.string();
  EXPECT_EQ((Strings{args->begin() + 1, args->begin() + 17}),
            (Strings{"-fatbin", "-Xcompiler", "-include," + work + "/arch_list.h", "--threads", "2", "-gencode",
                     "arch=compute_80,code=sm_80", "-gencode", "arch=compute_90,code=sm_90", "-gencode",
                     "arch=compute_90,code=compute_90", "-o", work + "/image.fatbin", "-keep", "-keep-dir",
                     work + "/kept"}));
  // Each architecture's device code sees itself alone in __CUDA_ARCH_LIST__, as in a run of its own.
  EXPECT_EQ(FakeNvcc::read(m_job.work_dir / "arch_list.h"),
            "#if defined(__CUDA_ARCH__)\n#undef __CUDA_ARCH_LIST__\n#if __CUDA_ARCH__ == 800\n#define __CUDA_ARCH_LIST__ 800\n"
            "#elif __CUDA_ARCH__ == 900\n#define __CUDA_ARCH_LIST__ 900\n#endif\n#endif\n");
  expect_plain(*args);
  const Result<Strings> one_thread = nvcc_arguments(jobs, 1, *workspace, "kernels/a.cu", false);
  ASSERT_TRUE(one_thread);
  EXPECT_EQ(std::find(one_thread->begin(), one_thread->end(), "--threads"), one_thread->end());
}

TEST_F(NvccCompile, TheCopyFindsTheSourcesNeighboursThroughARelativeQuoteDirectory) {
  m_job.name_expressions = {"k<int>"};
  (void)compile_with_nvcc(m_job, m_nvcc);
  EXPECT_NE(std::find(m_nvcc.m_argv.begin(), m_nvcc.m_argv.end(), "-iquote,kernels"), m_nvcc.m_argv.end())
      << "keeps __FILE__ in those headers relative";
  EXPECT_EQ(m_nvcc.m_argv.back(), (m_job.work_dir / "src/kernels/a.cu").string());
}

// A source named with shell syntax (a repository may hold one) compiles through a copy with a plain
// name, whose #line gives the name back; the seeds are spelt plainly.
TEST_F(NvccCompile, ASourceNamedWithShellSyntaxReachesNvccOnlyThroughPlainNames) {
  const std::string name = "kernels/h $(touch PWNED) `id`;x&y|z'q\"*.cu";
  std::ofstream(m_job.root / name) << "__global__ void k() {}\n";
  m_job.source = name;
  const CompileOutput out = compile_with_nvcc(m_job, m_nvcc);
  expect_plain(m_nvcc.m_argv);
  EXPECT_TRUE(m_nvcc.m_input.starts_with("#line 1 \"kernels/h $(touch PWNED) `id`;x&y|z'q\\\"*.cu\"\n"))
      << m_nvcc.m_input;
  EXPECT_NE(std::find(m_nvcc.m_argv.begin(), m_nvcc.m_argv.end(), "-frandom-seed=" + plain_spelling(name)),
            m_nvcc.m_argv.end());
  EXPECT_NE(std::find(m_nvcc.m_argv.begin(), m_nvcc.m_argv.end(), "--orig_src_path_name=" + plain_spelling(name)),
            m_nvcc.m_argv.end());
  EXPECT_EQ(m_nvcc.m_argv.back(), (m_job.work_dir / "src" / plain_spelling(name)).string());
}

// The build's scratch directory is next to the output: an output directory with shell syntax in its
// path moves nvcc's workspace to the system's temporary directory, removed afterwards.
TEST_F(NvccCompile, AnOutputDirectoryWithShellSyntaxMovesTheWorkspaceToTheTemporaryDirectory) {
  m_job.work_dir = m_dir / "out $(touch PWNED)" / "nvcc-0";
  m_job.target = "compute_100f";
  const CompileOutput out = compile_with_nvcc(m_job, m_nvcc);
  ASSERT_TRUE(out.ok) << out.log;
  expect_plain(m_nvcc.m_argv);
  const fs::path workspace = fs::path(tmpdir_of(m_nvcc.m_settings)).parent_path();
  EXPECT_TRUE(workspace.filename().string().starts_with("kiln-nvcc-")) << workspace;
  EXPECT_FALSE(fs::exists(workspace)) << "removed after the compile";
  EXPECT_FALSE(fs::exists(m_job.work_dir));
}

// A checkout whose path has a space: nvcc runs in the workspace and reaches the project through links;
// its depfile and messages name the project's files again.
TEST_F(NvccCompile, ARootWithASpaceIsReachedThroughLinksAndNamedBackInHeadersAndMessages) {
  const fs::path root = m_dir / "my project";
  fs::create_directories(root / "kernels");
  fs::create_directories(root / "include");
  std::ofstream(root / "kernels/a.cu") << "__global__ void k() {}\n";
  m_job.root = root;
  m_job.nvcc_options = {"-Iinclude"};
  m_job.target = "compute_100f";
  for (const char* header : {"include/x.cuh", "include/y.cuh", "kernels/local.cuh"}) std::ofstream(root / header) << "";
  // The links, in the order nvcc_arguments makes them: the source's directory, then -I's. A name of no
  // file (a line marker's) is no header.
  m_nvcc.m_headers = "kiln-link-1/x.cuh kiln-link-0/../include/y.cuh kiln-link-0/local.cuh kernels/a\\nb.cu";
  m_nvcc.m_output = "kiln-link-1/x.cuh:2:3: warning: look\n";
  const CompileOutput out = compile_with_nvcc(m_job, m_nvcc);
  ASSERT_TRUE(out.ok) << out.log;
  expect_plain(m_nvcc.m_argv);
  EXPECT_EQ(m_nvcc.m_settings.directory, m_job.work_dir);
  EXPECT_NE(std::find(m_nvcc.m_argv.begin(), m_nvcc.m_argv.end(), "-Ikiln-link-1"), m_nvcc.m_argv.end());
  EXPECT_EQ(out.headers, (Strings{(root / "include/x.cuh").string(), (root / "include/y.cuh").string(),
                                  (root / "kernels/local.cuh").string()}));
  EXPECT_EQ(out.log, "p/include/x.cuh:2:3: warning: look");
}

// Macros reach nvcc's shell in double quotes: when one is not plain, all of them, in order, go to a
// header the host compiler includes first; plain ones stay on the command line (the test above).
TEST_F(NvccCompile, MacrosThatAreNotPlainGoInOrderThroughAHeader) {
  m_job.nvcc_options = {"-DN=4", "-DMSG=\"a $(touch PWNED)\"", "-UN", "-DF(x)=x*2", "-DON"};
  m_job.target = "compute_100f";
  const CompileOutput out = compile_with_nvcc(m_job, m_nvcc);
  ASSERT_TRUE(out.ok) << out.log;
  expect_plain(m_nvcc.m_argv);
  EXPECT_EQ(m_nvcc.m_macros, "#define N 4\n#define MSG \"a $(touch PWNED)\"\n#undef N\n#define F(x) x*2\n#define ON 1\n");
  for (const std::string& arg : m_nvcc.m_argv) EXPECT_FALSE(arg.starts_with("-D") || arg.starts_with("-U")) << arg;
}

TEST_F(NvccCompile, AnOptionWithShellSyntaxIsAnErrorNamingItAndNvccNeverRuns) {
  m_job.nvcc_options = {"--diag-suppress=$(touch PWNED)"};
  const CompileOutput out = compile_with_nvcc(m_job, m_nvcc);
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.log.find("p/kernels/a.cu: error: option '--diag-suppress=$(touch PWNED)' holds characters that "
                         "nvcc's shell would read"),
            std::string::npos) << out.log;
  EXPECT_TRUE(m_nvcc.m_argv.empty());
}

TEST_F(NvccCompile, AMacroWithALineBreakIsAnError) {
  m_job.nvcc_options = {"-DA=1\n#include </etc/passwd>", "-DB=$(x)"};
  const CompileOutput out = compile_with_nvcc(m_job, m_nvcc);
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.log.find("holds a line break"), std::string::npos) << out.log;
  EXPECT_TRUE(m_nvcc.m_argv.empty());
}

TEST_F(NvccCompile, WhatIsNotLtoIrFailsTheLinkNamingTheSourceAndTarget) {
  m_job.relocatable = false;
  m_job.link_named_kernels_only = true;
  const CompileOutput out = compile_with_nvcc(m_job, m_nvcc);
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.log.find("p/kernels/a.cu: error: linking for sm_80 failed"), std::string::npos) << out.log;
}

TEST_F(NvccCompile, WhatIsNotACubinForTheTargetIsAnErrorNamingTheSourceAndTarget) {
  const CompileOutput out = compile_with_nvcc(m_job, m_nvcc);
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.log.find("p/kernels/a.cu: error: nvcc wrote no cubin for sm_80 ("), std::string::npos) << out.log;
}

TEST_F(NvccCompile, MissingNvccSaysWhereItLooked) {
  m_job.nvcc = m_dir / "nowhere/nvcc";
  const CompileOutput out = compile_with_nvcc(m_job, m_nvcc);
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.log.find("p/kernels/a.cu: error: nvcc compiles this source, and there is no nvcc at"),
            std::string::npos)
      << out.log;
}

}  // namespace
}  // namespace kiln::compile
