#include "compile/time_trace.hpp"

#include <gtest/gtest.h>

namespace kiln::compile {
namespace {

TEST(TimeTrace, HeadersInFirstSeenOrderWithoutTheBuiltin) {
  const std::string trace = R"json({"otherData": {}, "traceEvents": [ {},
    {"name": "Processing Header File", "args": {"detail": "__nv_nvrtc_builtin_header.h"}},
    {"name": "Processing Header File", "args": {"detail": "kernels/common.cuh"}},
    {"name": "Scanning Function Body", "args": {"detail": "f()"}},
    {"name": "Processing Header File", "args": {"detail": "/usr/local/cuda/include/cuda_fp16.h"}},
    {"name": "Processing Header File", "args": {"detail": "kernels/common.cuh"}}]})json";
  const Result<std::vector<std::string>> headers = headers_from_trace(trace);
  ASSERT_TRUE(headers);
  EXPECT_EQ(*headers, (std::vector<std::string>{"kernels/common.cuh", "/usr/local/cuda/include/cuda_fp16.h"}));
}

TEST(TimeTrace, MalformedTraceIsAnError) {
  EXPECT_FALSE(headers_from_trace("{\"traceEvents\": [ {}, "));
  EXPECT_FALSE(headers_from_trace("[]"));
}

TEST(TimeTrace, NvrtcAppendsJsonToTheRequestedPath) {
  EXPECT_EQ(trace_output_path("/tmp/x/trace-3"), std::filesystem::path("/tmp/x/trace-3.json"));
}

}  // namespace
}  // namespace kiln::compile
