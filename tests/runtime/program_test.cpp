// kiln_program_compile with the toolkit's real NVRTC and nvJitLink and the fake driver: a program's
// kernels and globals behave as a package's (parameters from the cubin, launches, lookups), a compile
// error is COMPILE_FAILED with NVRTC's log, and bad arguments are refused before compiling.
#include "runtime_fixture.hpp"

#include "kiln/kiln.h"
#include "kiln/program.hpp"

#include <cstdlib>
#include <filesystem>

namespace kiln::testing {
namespace {

class ProgramTest : public RuntimeTest {
protected:
  void SetUp() override {
    RuntimeTest::SetUp();
    if (const std::string why = use_toolkit_compilers(); !why.empty()) GTEST_SKIP() << why;
  }
  static kiln::Program scale_program() {
    kiln::Program p;
    p.name = "scale.cu";
    p.source = "#include \"bias.h\"\n__device__ int table[4];\n"
               "template <typename T> __global__ void scale(T* x, T a, int n) {\n"
               "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
               "  if (i < n) x[i] = x[i] * a + k_bias + table[i % 4];\n}\n";
    p.headers = {{"bias.h", "#pragma once\nconstexpr int k_bias = 1;\n"}};
    p.kernels = {"scale<float>", "scale<double>"};
    p.globals = {"table"};
    return p;
  }
};

TEST_F(ProgramTest, KernelsAndGlobalsBehaveAsAPackages) {
  fake->globals["table"] = {0x1000, 16};
  kiln::Package compiled = scale_program().compile();
  EXPECT_EQ(compiled.targets(), std::vector<std::string>{"sm_90"}) << "compiled for the fake device (9.0)";
  kiln::Kernel k = compiled.kernel("scale< float >");
  float* x = nullptr;
  float a = 2;
  int n = 4;
  k.launch(1, 32, 0, nullptr, x, a, n);
  ASSERT_EQ(fake->launches().size(), 1u);
  EXPECT_EQ(fake->launches()[0].kernel, "_Z5scaleIfEvPT_S0_i");
  // The parameters come from the cubin, so a wrong count is refused before the driver sees it.
  void* args[2] = {&x, &a};
  EXPECT_EQ(kiln_kernel_launch(k.get(), {1, 1, 1}, {32, 1, 1}, 0, nullptr, args, 2),
            KILN_STATUS_ARGUMENT_MISMATCH);
  EXPECT_EQ(compiled.global("table").device_pointer, 0x1000u);
  EXPECT_GE(kiln::cache_stats().compiles + kiln::cache_stats().cache_hits, 1u);
}

TEST_F(ProgramTest, ACompileErrorIsCompileFailedWithNvrtcsLog) {
  kiln::Program broken = scale_program();
  broken.source = "__global__ void k() { undeclared_thing(); }\n";
  broken.kernels = {"k"};
  broken.globals = {};
  const std::string message = error_of([&] { broken.compile(); }, KILN_STATUS_COMPILE_FAILED);
  EXPECT_NE(message.find("scale.cu: compiling for sm_90 at run time failed"), std::string::npos) << message;
  EXPECT_NE(message.find("identifier \"undeclared_thing\" is undefined"), std::string::npos) << message;
}

TEST_F(ProgramTest, BadArgumentsAreRefusedBeforeCompiling) {
  const char* kernel = "k";
  const char* null_entry[] = {nullptr};
  kiln_program p{};
  kiln_package* out = reinterpret_cast<kiln_package*>(0x1);
  EXPECT_EQ(kiln_program_compile(nullptr, &out), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(out, nullptr);
  p.struct_size = sizeof(p) - 8;
  p.source = "__global__ void k() {}";
  EXPECT_EQ(kiln_program_compile(&p, &out), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(kiln_last_error()).find("below sizeof(kiln_program)"), std::string::npos);
  p.struct_size = sizeof(p);
  EXPECT_EQ(kiln_program_compile(&p, nullptr), KILN_STATUS_INVALID_ARGUMENT);
  p.source = nullptr;
  EXPECT_EQ(kiln_program_compile(&p, &out), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(kiln_last_error()).find("program->source is NULL"), std::string::npos);
  p.source = "__global__ void k() {}";
  p.kernels = null_entry;
  p.kernel_count = 1;
  EXPECT_EQ(kiln_program_compile(&p, &out), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(kiln_last_error()).find("kernels[0] is NULL"), std::string::npos);
  p.kernels = &kernel;
  p.options = nullptr;
  p.option_count = 2;
  EXPECT_EQ(kiln_program_compile(&p, &out), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(kiln_last_error()).find("options is NULL"), std::string::npos);
  const kiln_program_header nameless{nullptr, "text"};
  p.option_count = 0;
  p.headers = &nameless;
  p.header_count = 1;
  EXPECT_EQ(kiln_program_compile(&p, &out), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(std::string(kiln_last_error()).find("headers[0].name is NULL"), std::string::npos);
  EXPECT_EQ(out, nullptr);
}

TEST_F(ProgramTest, CacheStatsRefuseAShortStruct) {
  kiln_cache_stats stats{};
  stats.struct_size = sizeof(stats) - 8;
  EXPECT_EQ(kiln_cache_get_stats(&stats), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_cache_get_stats(nullptr), KILN_STATUS_INVALID_ARGUMENT);
  EXPECT_EQ(kiln_compiler_add_search_dir(nullptr), KILN_STATUS_INVALID_ARGUMENT);
}

// A relative directory would be searched under whatever the working directory is when the compilers
// load: refused, saying so.
TEST_F(ProgramTest, ACompilerSearchDirectoryMustBeAbsolute) {
  for (const char* relative : {"nvidia/cu13/lib", "./lib", "", "../lib"}) {
    EXPECT_EQ(kiln_compiler_add_search_dir(relative), KILN_STATUS_INVALID_ARGUMENT) << relative;
    EXPECT_NE(std::string(kiln_last_error()).find("a relative path; it must be absolute"), std::string::npos)
        << kiln_last_error();
  }
  EXPECT_EQ(kiln_compiler_add_search_dir("/nonexistent/kiln-test/lib"), KILN_STATUS_SUCCESS) << kiln_last_error();
}

}  // namespace
}  // namespace kiln::testing
