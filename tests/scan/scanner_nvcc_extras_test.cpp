// Code nvcc compiles through what its headers declare and clang 19's CUDA wrapper does not (the
// scanner's support headers, support/): each fixture failed to scan before them. The kernels and
// instantiations found are the point; nothing here is a warning.
#include "scan_fixture.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace kiln::test {
namespace {

using namespace kiln::scan;
using Found = std::set<std::pair<std::string, FoundBy>>;
constexpr auto k_explicit = FoundBy::explicit_instantiation;

bool reads_header(const ScanResult& r, const std::string& suffix) {
  return std::any_of(r.headers.begin(), r.headers.end(), [&](const Header& h) { return h.path.ends_with(suffix); });
}

TEST(ScanNvccExtras, CacheHintedLoadsAndStores) {
  const ScanResult r = scan_fixture("nvcc_cache_hints.cu");
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_TRUE(r.diagnostics.empty()) << describe(r);
  EXPECT_EQ(kernel_names(r), (std::set<std::string>{"stream_copy", "mixed"}));
  EXPECT_EQ(instantiations(r), (Found{{"stream_copy<float4>", k_explicit},
                                     {"stream_copy<double2>", k_explicit},
                                     {"stream_copy<int>", k_explicit},
                                     {"stream_copy<unsigned long long>", k_explicit},
                                     {"stream_copy<uchar4>", k_explicit},
                                     {"stream_copy<__half2>", k_explicit},
                                     {"stream_copy<__nv_bfloat16>", k_explicit}}));
  EXPECT_TRUE(reads_header(r, "/cuda_fp16.hpp"));
  EXPECT_TRUE(reads_header(r, "/cuda_bf16.hpp"));
}

TEST(ScanNvccExtras, SurfaceAndTextureFunctions) {
  const ScanResult r = scan_fixture("nvcc_surfaces.cu");
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_TRUE(r.diagnostics.empty()) << describe(r);
  EXPECT_EQ(instantiations(r), (Found{{"copy_surfaces<float>", k_explicit},
                                     {"copy_surfaces<uchar4>", k_explicit},
                                     {"sample<float4>", k_explicit}}));
  // The toolkit's texture header is still the one read (behind the scanner's override), and its
  // surface header is not (the scanner declares those functions itself).
  EXPECT_TRUE(reads_header(r, "/include/texture_indirect_functions.h"));
  EXPECT_FALSE(reads_header(r, "/surface_indirect_functions.h"));
  EXPECT_FALSE(r.has_host_code);
}

TEST(ScanNvccExtras, HostMinMaxAndClassification) {
  const ScanResult r = scan_fixture("nvcc_host_math.cu");
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_TRUE(r.diagnostics.empty()) << describe(r);
  EXPECT_EQ(kernel_names(r), (std::set<std::string>{"clamp_all"}));
  EXPECT_EQ(instantiations(r), (Found{{"clamp_all<float>", FoundBy::launch}}));
  EXPECT_TRUE(r.has_host_code);
}

TEST(ScanNvccExtras, HeadersNvccIncludesImplicitly) {
  const ScanResult r = scan_fixture("nvcc_implicit_headers.cu");
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_TRUE(r.diagnostics.empty()) << describe(r);
  EXPECT_EQ(kernel_names(r), (std::set<std::string>{"timed"}));
  EXPECT_TRUE(r.has_host_code);
  for (const char* header : {"/time.h", "/stdio.h", "/assert.h"}) EXPECT_TRUE(reads_header(r, header)) << header;
}

TEST(ScanNvccExtras, OpenMpStandIn) {
  const ScanResult r = scan_fixture("nvcc_openmp.cu");
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(instantiations(r), (Found{{"add_one<128>", FoundBy::launch}}));
  EXPECT_TRUE(r.has_host_code);
  // The stand-in is a support file: not one of the source's headers.
  EXPECT_FALSE(reads_header(r, "/omp.h"));

  const ScanResult host = scan_fixture("nvcc_openmp_host.cpp", ScanInput::Role::host);
  ASSERT_TRUE(host.ok()) << describe(host);
  ASSERT_EQ(host.requests.size(), 1u);
  EXPECT_EQ(host.requests[0].name, "add_one<128>");
}

TEST(ScanNvccExtras, ClusterGroups) {
  const ScanResult r = scan_fixture("nvcc_clusters.cu");
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(instantiations(r), (Found{{"gather_ranks<2>", k_explicit}}));
}

// __NVCC__, __CUDACC__ 1, __CUDACC_VER_MAJOR__, `register` in C++17, __nv_atomic_*; CCCL still parses.
TEST(ScanNvccExtras, WhatNvccPredefines) {
  const ScanResult r = scan_fixture("nvcc_predefined.cu");
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_TRUE(r.diagnostics.empty()) << describe(r);
  EXPECT_EQ(instantiations(r), (Found{{"accumulate<unsigned long long>", k_explicit}}));
}

// clang's wrapper includes "cuda.h" with quotes: a project's own cuda.h on the include path must
// not take the toolkit's place there, and the project still gets its own.
TEST(ScanNvccExtras, ProjectHeaderNamedCudaH) {
  ScanInput input = fixture_input("own_cuda_h/uses_own_cuda_h.cu");
  input.include_dirs.push_back("own_cuda_h");
  const ScanResult r = scan_source(input);
  ASSERT_TRUE(r.ok()) << describe(r);
  EXPECT_EQ(instantiations(r), (Found{{"count<128>", k_explicit}}));
  EXPECT_TRUE(reads_header(r, "own_cuda_h/cuda.h"));
  EXPECT_TRUE(reads_header(r, "/include/cuda.h"));
}

// NVRTC defines assert without a header: both the prelude parse and the full one know it.
TEST(ScanNvccExtras, AssertInIncludeFreeSources) {
  const ScanResult fast = scan_fixture("nvrtc_assert.cu");
  ASSERT_TRUE(fast.ok()) << describe(fast);
  EXPECT_EQ(instantiations(fast), (Found{{"bounded<64>", k_explicit}}));
  EXPECT_FALSE(reads_header(fast, "/cuda_runtime.h"));   // the prelude parse took it

  const ScanResult full = scan_fixture("nvrtc_assert_atomic.cu");
  ASSERT_TRUE(full.ok()) << describe(full);
  EXPECT_EQ(instantiations(full), (Found{{"checked_count<int>", k_explicit}}));
  EXPECT_TRUE(reads_header(full, "/cuda_runtime.h"));    // atomicAdd needed the wrapper
  EXPECT_FALSE(full.has_host_code);
}

}  // namespace
}  // namespace kiln::test
