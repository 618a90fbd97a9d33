// NVRTC's time trace, read for the headers a compile opened: one reader for the build's compiles and
// the run-time ones (nvrtc/time_trace.hpp). NVRTC writes each event compactly with "args" first; JSON
// allows any spacing, member order and escape, and a trace cut short is an error, not fewer headers.
#include "nvrtc/time_trace.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace kiln::jit {
namespace {

using Headers = std::vector<std::string>;

Headers headers_of(const std::string& trace) {
  Result<Headers> headers = headers_in_time_trace(trace);
  EXPECT_TRUE(headers) << trace;
  return headers ? *headers : Headers{};
}

TEST(TimeTrace, HeadersAsNvrtcWritesThemInOrderWithoutRepeatsOrTheBuiltin) {
  const std::string trace =
      R"J({"traceEvents":[{},{"args":{"detail":"__nv_nvrtc_builtin_header.h"},"dur":1,"name":"Processing Header File","ph":"X"},)J"
      R"J({"args":{"detail":"/a/b.cuh"},"dur":1,"name":"Processing Header File","ph":"X","pid":1,"tid":2,"ts":3.5e2},)J"
      R"J({"args":{"detail":"f()"},"dur":1,"name":"Scanning Function Body","ph":"X"},)J"
      R"J({"args":{"detail":"C:\\dir\\x \"y\".h"},"name":"Processing Header File"},)J"
      R"J({"args":{"detail":"/a/b.cuh"},"dur":1,"name":"Processing Header File","ph":"X"}],"beginningOfTime":-1})J";
  EXPECT_EQ(headers_of(trace), (Headers{"/a/b.cuh", "C:\\dir\\x \"y\".h"}));
}

TEST(TimeTrace, AnySpacingAndMemberOrder) {
  const std::string trace = R"json({"otherData": {"version": null, "ok": true}, "traceEvents" : [ {},
    {"name": "Processing Header File", "args": {"detail": "kernels/common.cuh"}},
    {"name": "Scanning Function Body", "args": {"detail": "f()"}},
    {"ph": "X", "name": "Processing Header File", "args": {"other": [1, 2, {"x": false}], "detail": "/usr/local/cuda/include/cuda_fp16.h"}},
    {"name": "Processing Header File", "args": {"detail": "kernels/common.cuh"}}]}
)json";
  EXPECT_EQ(headers_of(trace), (Headers{"kernels/common.cuh", "/usr/local/cuda/include/cuda_fp16.h"}));
}

TEST(TimeTrace, EscapesAreDecodedIntoUtf8) {
  // "\/", control characters, a BMP character and one outside it (a surrogate pair).
  const std::string trace =
      R"J({"traceEvents":[{"args":{"detail":"\/src\/caf\u00e9\tdir\/\u65e5\ud83d\ude00.h"},"name":"Processing Header File"}]})J";
  EXPECT_EQ(headers_of(trace), (Headers{"/src/caf\xc3\xa9\tdir/\xe6\x97\xa5\xf0\x9f\x98\x80.h"}));
}

TEST(TimeTrace, EventsAndMembersOfOtherShapesArePassedOver) {
  const std::string trace =
      R"J({"traceEvents":[3, "x", null, [], {"name": 7, "args": {"detail": "a.h"}},)J"
      R"J({"name": "Processing Header File", "args": "b.h"}, {"name": "Processing Header File", "args": {"detail": 1}},)J"
      R"J({"name": "Processing Header File", "args": {"detail": ""}}, {"name": "Processing Header File", "args": {"detail": "c.h"}}]})J";
  EXPECT_EQ(headers_of(trace), (Headers{"c.h"}));
}

TEST(TimeTrace, WhatIsNotATraceIsAnError) {
  for (const char* text : {"",
                           "[]",
                           "{}",                                        // no traceEvents
                           R"({"traceEvents": {}})",                    // not an array
                           R"({"traceEvents": [ {}, )",                 // cut short
                           R"({"traceEvents": [{"name": "Processing Header File", "args": {"detail": "a.h)",
                           R"({"traceEvents": []} x)",                  // something after it
                           R"({"traceEvents": [], "n": 01.})",          // not a number
                           R"({"traceEvents": [{"args": {"detail": "a\q.h"}}]})",   // no such escape
                           R"({"traceEvents": [{"args": {"detail": "\ud83d.h"}}]})",  // half a pair
                           "{\"traceEvents\": [{\"args\": {\"detail\": \"a\nb.h\"}}]}",   // raw control character
                           R"({"traceEvents": [tru]})"}) {
    const Result<Headers> headers = headers_in_time_trace(text);
    ASSERT_FALSE(headers) << text;
    EXPECT_EQ(headers.error().message, "NVRTC's time trace is not the JSON Kiln expects");
  }
  // Nesting far deeper than any trace is refused before it can exhaust the stack.
  const std::string deep = R"({"traceEvents": [], "x": )" + std::string(100'000, '[') + std::string(100'000, ']') + "}";
  EXPECT_FALSE(headers_in_time_trace(deep));
}

TEST(TimeTrace, NvrtcAppendsJsonToTheRequestedPath) {
  EXPECT_EQ(trace_output_path("/tmp/x/trace-3"), "/tmp/x/trace-3.json");
}

// The trace as a file: read only where it is a regular file of bounded size; anything else is an error
// (headers unknown), never an empty list and never a wait.
TEST(TimeTrace, AFileThatIsNotATraceToReadIsAnErrorWithoutWaiting) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("kiln-trace-file-test-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string trace = R"J({"traceEvents":[{"args":{"detail":"/a/b.cuh"},"name":"Processing Header File"}]})J";
  std::ofstream(dir / "good.json") << trace;
  const Result<Headers> good = headers_in_trace_file((dir / "good").string());
  ASSERT_TRUE(good) << good.error().message;
  EXPECT_EQ(*good, Headers{"/a/b.cuh"});
  EXPECT_FALSE(headers_in_trace_file((dir / "missing").string()));
  fs::create_symlink(dir / "good.json", dir / "link.json");
  EXPECT_FALSE(headers_in_trace_file((dir / "link").string())) << "a link is not followed";
  ASSERT_EQ(mkfifo((dir / "fifo.json").c_str(), 0600), 0);
  EXPECT_FALSE(headers_in_trace_file((dir / "fifo").string())) << "a FIFO is not waited on";
  fs::create_directory(dir / "dir.json");
  EXPECT_FALSE(headers_in_trace_file((dir / "dir").string()));
  std::ofstream(dir / "huge.json") << trace;
  fs::resize_file(dir / "huge.json", k_time_trace_limit + 1);   // sparse: nothing is written
  EXPECT_FALSE(headers_in_trace_file((dir / "huge").string())) << "larger than the limit";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kiln::jit
