#include "util/process_pool.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <csignal>
#include <map>
#include <random>

namespace kiln {
namespace {

namespace fs = std::filesystem;

TEST(ProcessPool, EveryResultComesBackAndDeadWorkersAreNamed) {
  const fs::path scratch = fs::temp_directory_path() / ("kiln-pool-test-" + std::to_string(getpid()) + "-" +
                                                        std::to_string(std::random_device{}()));
  fs::create_directories(scratch);
  std::map<std::size_t, WorkerResult> results;
  run_in_processes(
      6, {3, scratch, "t-"},
      [](std::size_t i) {
        if (i == 4) raise(SIGKILL);
        if (i == 5) _exit(2);
        return std::vector<std::byte>(i, std::byte{'x'});
      },
      [&](std::size_t i, WorkerResult r) { results.emplace(i, std::move(r)); });
  ASSERT_EQ(results.size(), 6u);
  for (std::size_t i = 0; i < 4; ++i) {
    ASSERT_TRUE(results[i].bytes) << i << ": " << results[i].failure;
    EXPECT_EQ(results[i].bytes->size(), i);
  }
  EXPECT_FALSE(results[4].bytes);
  EXPECT_NE(results[4].failure.find("died with signal 9"), std::string::npos) << results[4].failure;
  EXPECT_EQ(results[5].failure, "failed to report its result");
  EXPECT_TRUE(fs::is_empty(scratch)) << "result files are removed";
  fs::remove_all(scratch);
}

}  // namespace
}  // namespace kiln
