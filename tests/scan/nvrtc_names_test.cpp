// Every name expression the scanner emits for a source NVRTC can compile must be one NVRTC accepts:
// nvrtcAddNameExpression, compile, nvrtcGetLoweredName. Runs without a GPU (compiles to PTX).
#include "scan_fixture.hpp"

#include <gtest/gtest.h>
#include <nvrtc.h>

#include <fstream>
#include <sstream>

namespace kiln::test {
namespace {

using namespace kiln::scan;

std::string read_fixture(const std::string& name) {
  std::ifstream in(std::string(KILN_SCAN_FIXTURES) + "/" + name);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Compiles `source` with NVRTC asking for each name expression; returns "" or what went wrong.
std::string lower_all(const std::string& name, const std::vector<std::string>& expressions) {
  const std::string source = read_fixture(name);
  nvrtcProgram program = nullptr;
  if (nvrtcCreateProgram(&program, source.c_str(), name.c_str(), 0, nullptr, nullptr) != NVRTC_SUCCESS)
    return "nvrtcCreateProgram failed";
  for (const std::string& e : expressions) nvrtcAddNameExpression(program, e.c_str());
  const std::string cccl = std::string("-I") + KILN_CUDA_ROOT + "/include/cccl";
  const std::string cuda = std::string("-I") + KILN_CUDA_ROOT + "/include";
  const std::string fixtures = std::string("-I") + KILN_SCAN_FIXTURES + "/include";
  const char* options[] = {"-arch=compute_90", "-std=c++17", cccl.c_str(), cuda.c_str(), fixtures.c_str()};
  std::string problem;
  if (nvrtcCompileProgram(program, 5, options) != NVRTC_SUCCESS) {
    std::size_t size = 0;
    nvrtcGetProgramLogSize(program, &size);
    std::string log(size, '\0');
    nvrtcGetProgramLog(program, log.data());
    problem = "compile failed:\n" + log;
  }
  for (const std::string& e : expressions) {
    const char* lowered = nullptr;
    if (problem.empty() && (nvrtcGetLoweredName(program, e.c_str(), &lowered) != NVRTC_SUCCESS || !lowered || !*lowered))
      problem = "no lowered name for " + e;
  }
  nvrtcDestroyProgram(&program);
  return problem;
}

std::vector<std::string> expressions(const std::vector<Instantiation>& instantiations) {
  std::vector<std::string> out;
  for (const Instantiation& i : instantiations) out.push_back(i.name_expression);
  return out;
}

class ScanNvrtc : public testing::TestWithParam<const char*> {};

TEST_P(ScanNvrtc, NameExpressionsLower) {
  const ScanResult r = scan_fixture(GetParam());
  ASSERT_TRUE(r.ok()) << describe(r);
  ASSERT_FALSE(r.has_host_code);
  ASSERT_FALSE(r.instantiations.empty());
  EXPECT_EQ(lower_all(GetParam(), expressions(r.instantiations)), "");
}

INSTANTIATE_TEST_SUITE_P(Fixtures, ScanNvrtc,
                         testing::Values("namespaces.cu", "functor.cu", "variadic.cu", "defaults.cu",
                                         "header_template.cu", "nvrtc_style.cu", "nvrtc_sync.cu", "nvrtc_assert.cu",
                                         "nvrtc_assert_atomic.cu", "nvcc_cache_hints.cu", "nvcc_surfaces.cu",
                                         "nvcc_lenient_asm.cu", "nvcc_clusters.cu"),
                         [](const testing::TestParamInfo<const char*>& param) {
                           std::string name = param.param;
                           return name.substr(0, name.find('.'));
                         });

// The check itself: a name NVRTC cannot resolve fails it.
TEST(ScanNvrtcRequests, CheckRejectsABadName) {
  EXPECT_NE(lower_all("variadic.cu", {"sum_constants<1, 2, 3>", "count_args<no_such_type>"}), "");
}

// What runtime requests resolve to is what the build hands NVRTC.
TEST(ScanNvrtcRequests, ResolvedRequestsLower) {
  const ScanInput kernels = fixture_input("reduce_kernels.cu");
  const ScanResult scanned = scan_source(kernels);
  ASSERT_TRUE(scanned.ok()) << describe(scanned);
  const ScanResult host = scan_fixture("requests_host.cpp", ScanInput::Role::host);
  const Resolution resolved = resolve_requests(kernels, scanned, host.requests);
  ASSERT_EQ(resolved.instantiations.size(), 3u);
  EXPECT_EQ(lower_all("reduce_kernels.cu", expressions(resolved.instantiations)), "");
}

}  // namespace
}  // namespace kiln::test
