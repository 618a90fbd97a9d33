// util/once.hpp: what the loader does once per process or package (binding the driver, a deferred
// reader's checks, a split package's companion), without std::call_once's system call.
#include "util/once.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

namespace kiln::testing {
namespace {

TEST(Once, ManyThreadsRunTheWorkOnceAndAllSeeItDone) {
  Once once;
  std::atomic<int> runs{0};
  int result = 0;   // written by the work alone: each caller must see it once run() returns
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      once.run([&] {
        ++runs;
        std::this_thread::yield();
        result = 42;
      });
      if (result != 42) ++wrong;
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(wrong, 0);
  once.run([&] { ++runs; });
  EXPECT_EQ(runs, 1);
}

TEST(Once, AWorkThatThrowsIsRunAgainByTheNextCall) {
  Once once;
  int runs = 0;
  EXPECT_THROW(once.run([&] {
    ++runs;
    throw std::runtime_error("the first run fails");
  }),
               std::runtime_error);
  once.run([&] { ++runs; });
  once.run([&] { ++runs; });
  EXPECT_EQ(runs, 2);
}

}  // namespace
}  // namespace kiln::testing
