#include "compile/compile_job.hpp"

#include <gtest/gtest.h>

namespace kiln::compile {
namespace {

TEST(CompileOutput, RoundTripsThroughBytes) {
  CompileOutput out;
  out.ok = true;
  out.log = "a.cu:3: warning: x";
  out.image = {std::byte{1}, std::byte{0}, std::byte{255}};
  out.lowered_names = {{"k<int>", "_Z1kIiEvv"}, {"&table", "table"}};
  out.headers = {"common.cuh"};
  out.seconds = 1.25;
  CompileOutput back;
  ASSERT_TRUE(deserialize(serialize(out), back));
  EXPECT_FALSE(back.headers_unknown);
  out.headers_unknown = true;   // a worker's compile whose trace could not be read says so to the build
  CompileOutput unknown;
  ASSERT_TRUE(deserialize(serialize(out), unknown));
  EXPECT_TRUE(unknown.headers_unknown);
  EXPECT_TRUE(back.ok);
  EXPECT_EQ(back.log, out.log);
  EXPECT_EQ(back.image, out.image);
  ASSERT_EQ(back.lowered_names.size(), 2u);
  EXPECT_EQ(back.lowered_names[1].lowered, "table");
  EXPECT_EQ(back.headers, out.headers);
  EXPECT_DOUBLE_EQ(back.seconds, 1.25);
}

// The cache keeps a compile's time in whole microseconds, and compile times files write them: a time
// read back from the cache is the number written when it was measured (2.045428 s is
// 2045427.9999999998 us as a double, which truncation made one less).
TEST(CompileOutput, ATimeReadBackIsTheWholeMicrosecondsItWasMeasuredAs) {
  for (const double seconds : {2.045428, 0.151874, 1.25, 0.0000004, 0.0000005, 3600.000001, 0.0}) {
    CompileOutput out;
    out.seconds = seconds;
    CompileOutput back;
    ASSERT_TRUE(deserialize(serialize(out), back));
    EXPECT_EQ(whole_microseconds(back.seconds), whole_microseconds(seconds)) << seconds;
  }
  EXPECT_EQ(whole_microseconds(2.045428), 2045428u);
  EXPECT_EQ(whole_microseconds(0.0000004), 0u);
  EXPECT_EQ(whole_microseconds(-1.0), 0u);
}

TEST(CompileOutput, TruncatedBytesAreRejected) {
  CompileOutput out;
  out.log = "x";
  out.headers = {"h"};
  const std::vector<std::byte> bytes = serialize(out);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    CompileOutput back;
    EXPECT_FALSE(deserialize(std::vector<std::byte>(bytes.begin(), bytes.begin() + static_cast<long>(n)), back)) << n;
  }
}

}  // namespace
}  // namespace kiln::compile
