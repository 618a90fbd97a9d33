// One run-time compile with the toolkit's real NVRTC and nvJitLink (no GPU needed): a template kernel
// from a header in memory and one on disk, a kept variable, the headers reported; a compile error with
// NVRTC's log; a missing header. Skipped, saying so, where the toolkit lacks the libraries.
#include "image/cubin_reader.hpp"
#include "nvrtc/compiler_loader.hpp"
#include "nvrtc/program_compiler.hpp"

#include <gtest/gtest.h>

#include <sys/inotify.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>

namespace kiln::jit {
namespace {

namespace fs = std::filesystem;

class ProgramCompilerTest : public ::testing::Test {
protected:
  void SetUp() override {
    SearchSettings s;
    s.environment = [](const char* name) -> std::optional<std::string> {
      return std::string(name) == "CUDA_PATH" ? std::optional<std::string>("/usr/local/cuda") : std::nullopt;
    };
    Result<CompilerApi> api = load_compiler(s, 0);
    if (!api) GTEST_SKIP() << "no NVRTC and nvJitLink under /usr/local/cuda: " << api.error().message;
    m_api = *api;
    m_dir = fs::temp_directory_path() /
            ("kiln-program-compiler-" + std::to_string(getpid()) + "-" + std::to_string(std::random_device{}()));
    fs::create_directories(m_dir / "include");
    std::ofstream(m_dir / "include" / "factor.cuh") << "#pragma once\nconstexpr int k_factor = 3;\n";
  }
  void TearDown() override {
    std::error_code ignored;
    if (!m_dir.empty()) fs::remove_all(m_dir, ignored);
  }
  ProgramInput input() const {
    ProgramInput in;
    in.name = "scale.cu";
    in.source = "#include \"bias.h\"\n#include \"factor.cuh\"\n__device__ int table[4];\n"
                "template <typename T> __global__ void scale(T* x, int n) {\n"
                "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                "  if (i < n) x[i] = x[i] * k_factor + k_bias + table[i % 4];\n}\n";
    in.headers = {{"bias.h", "#pragma once\nconstexpr int k_bias = 1;\n"}};
    in.options = {"-I" + (m_dir / "include").string(), "-std=c++17"};
    in.kernels = {"scale<float>", "scale<int>"};
    in.variables = {"table"};
    in.target = "sm_90";
    in.record_headers = true;
    return in;
  }
  CompilerApi m_api;
  fs::path m_dir;
};

TEST_F(ProgramCompilerTest, CompilesATrimmedCubinWithTheNamesAndHeaders) {
  const ProgramOutput out = compile_program(m_api, input());
  ASSERT_TRUE(out.ok) << out.log;
  ASSERT_EQ(out.kernel_symbols.size(), 2u);
  EXPECT_EQ(out.kernel_symbols[0], "_Z5scaleIfEvPT_i");
  EXPECT_EQ(out.kernel_symbols[1], "_Z5scaleIiEvPT_i");
  ASSERT_EQ(out.variable_symbols.size(), 1u);
  EXPECT_EQ(out.variable_symbols[0], "table");
  Result<image::CubinInfo> cubin = image::read_cubin(out.image, "scale.cu");
  ASSERT_TRUE(cubin) << cubin.error().message;
  EXPECT_EQ(cubin->sm, 90);
  const auto has = [&](const std::string& name) {
    return std::any_of(cubin->symbols.begin(), cubin->symbols.end(), [&](const auto& s) { return s.name == name; });
  };
  EXPECT_TRUE(has("_Z5scaleIfEvPT_i"));
  EXPECT_TRUE(has("table")) << "a variable asked for keeps its symbol through trimming";
  EXPECT_LT(out.image.size(), 20'000u) << "trimmed as the build trims";
  EXPECT_NE(std::find(out.headers.begin(), out.headers.end(), (m_dir / "include" / "factor.cuh").string()),
            out.headers.end());
  EXPECT_NE(std::find(out.headers.begin(), out.headers.end(), "bias.h"), out.headers.end());
  EXPECT_GT(out.seconds, 0.0);
}

// TMPDIR for one test, restored after it.
class TemporaryDirectory {
public:
  explicit TemporaryDirectory(const std::string& value) {
    if (const char* old = std::getenv("TMPDIR")) m_old = old;
    setenv("TMPDIR", value.c_str(), 1);
  }
  ~TemporaryDirectory() {
    if (m_old) {
      setenv("TMPDIR", m_old->c_str(), 1);
    } else {
      unsetenv("TMPDIR");
    }
  }

private:
  std::optional<std::string> m_old;
};

// NVRTC writes its trace where the compile made a directory of its own for it (another user cannot
// have put a FIFO or a directory at its name first), and nothing of it is left behind. What is
// created in TMPDIR is watched (inotify): one directory, and no file beside it.
TEST_F(ProgramCompilerTest, TheTraceIsWrittenInADirectoryOfItsOwnAndNothingIsLeft) {
  const fs::path tmp = m_dir / "tmp";
  fs::create_directories(tmp);
  const TemporaryDirectory scoped(tmp.string());
  const int watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  ASSERT_GE(watch, 0);
  ASSERT_GE(inotify_add_watch(watch, tmp.c_str(), IN_CREATE), 0);
  const ProgramOutput out = compile_program(m_api, input());
  std::vector<std::pair<std::string, bool>> created;   // name, a directory
  alignas(inotify_event) char events[16 * 1024];
  for (long n; (n = read(watch, events, sizeof events)) > 0;) {
    for (long at = 0; at < n;) {
      const auto* event = reinterpret_cast<const inotify_event*>(events + at);
      created.emplace_back(event->len ? event->name : "", (event->mask & IN_ISDIR) != 0);
      at += static_cast<long>(sizeof(inotify_event) + event->len);
    }
  }
  close(watch);
  ASSERT_EQ(created.size(), 1u) << "created in TMPDIR: " << created.size() << " entries, first "
                                << (created.empty() ? "" : created[0].first);
  EXPECT_TRUE(created[0].second) << created[0].first << " is a file in the shared directory, not a directory";
  EXPECT_EQ(created[0].first.rfind("kiln-trace-", 0), 0u) << created[0].first;
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_FALSE(out.headers_unknown);
  EXPECT_NE(std::find(out.headers.begin(), out.headers.end(), (m_dir / "include" / "factor.cuh").string()),
            out.headers.end());
  EXPECT_TRUE(fs::is_empty(tmp)) << "left in TMPDIR: " << fs::directory_iterator(tmp)->path();
}

// No trace to read: the compile still succeeds, and says its headers are unknown rather than none.
TEST_F(ProgramCompilerTest, WithoutATraceTheHeadersAreUnknownNotNone) {
  {
    const TemporaryDirectory scoped((m_dir / "no-such-directory").string());
    const ProgramOutput out = compile_program(m_api, input());
    ASSERT_TRUE(out.ok) << out.log;
    EXPECT_TRUE(out.headers_unknown);
    EXPECT_TRUE(out.headers.empty());
  }
  // The caller's own -fdevice-time-trace sends NVRTC's trace elsewhere: the same.
  ProgramInput in = input();
  in.options.push_back("-fdevice-time-trace=" + (m_dir / "mine").string());
  const ProgramOutput out = compile_program(m_api, in);
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_TRUE(out.headers_unknown);
}

TEST_F(ProgramCompilerTest, ACompileErrorCarriesNvrtcsLog) {
  ProgramInput in = input();
  in.source = "__global__ void k() { undeclared_thing(); }\n";
  in.kernels = {"k"};
  in.variables = {};
  const ProgramOutput out = compile_program(m_api, in);
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.log.find("scale.cu(1): error: identifier \"undeclared_thing\" is undefined"), std::string::npos)
      << out.log;
  EXPECT_NE(out.log.find("scale.cu: error: NVRTC: NVRTC_ERROR_COMPILATION"), std::string::npos) << out.log;
}

TEST_F(ProgramCompilerTest, AMissingHeaderIsNvrtcsMessage) {
  ProgramInput in = input();
  in.source = "#include \"nowhere.cuh\"\n";
  const ProgramOutput out = compile_program(m_api, in);
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.log.find("cannot open source file \"nowhere.cuh\""), std::string::npos) << out.log;
}

TEST_F(ProgramCompilerTest, ABadExpressionSaysWhich) {
  ProgramInput in = input();
  in.kernels = {"scale<struct Nope>"};
  const ProgramOutput out = compile_program(m_api, in);
  EXPECT_FALSE(out.ok);
  EXPECT_FALSE(out.log.empty());
}

TEST_F(ProgramCompilerTest, TheSeedNamesInternalSymbolsWhateverTheProgramsName) {
  // An unnamed namespace's variable: its symbol's name comes from -frandom-seed. A carried unit
  // compiles under its tree's path with the build's seed, and must make the build's image.
  ProgramInput in = input();
  in.source = "namespace { __device__ int hidden[3]; }\n"
              "template <typename T> __global__ void scale(T* x, int n) { if (n > 0) x[0] += hidden[n % 3]; }\n";
  in.variables = {};
  in.name = "kernels/scale.cu";
  in.random_seed = "kernels/scale.cu";
  const ProgramOutput as_built = compile_program(m_api, in);
  in.name = (m_dir / "tree" / "kernels" / "scale.cu").string();
  const ProgramOutput elsewhere = compile_program(m_api, in);
  in.random_seed.clear();
  const ProgramOutput unseeded = compile_program(m_api, in);
  ASSERT_TRUE(as_built.ok && elsewhere.ok && unseeded.ok) << as_built.log << elsewhere.log << unseeded.log;
  EXPECT_EQ(as_built.image, elsewhere.image);
  EXPECT_NE(as_built.image, unseeded.image) << "the seed did not reach NVRTC";
}

}  // namespace
}  // namespace kiln::jit
