// Many threads asking for and launching kernels at once, on two devices of different architectures:
// every image is loaded exactly once and every launch runs the image of its thread's device. On one
// device, where a launch goes straight to the driver, threads with no context launching at once.
// Run it under ThreadSanitizer too (CMake preset "tsan").
#include "runtime_fixture.hpp"

#include <algorithm>
#include <atomic>
#include <thread>

namespace kiln::testing {
namespace {

constexpr int k_threads = 16;
constexpr int k_iterations = 200;

TEST_F(RuntimeTest, ConcurrentRequestsAndLaunchesLoadEachImageOnce) {
  fake->devices = {FakeDevice{80, false, 101376}, FakeDevice{90, false, 232448}};
  PackageSpec spec;
  spec.units = {{"a.cu", {"sm_80", "sm_90"}}, {"b.cu", {"sm_80", "sm_90", "compute_80"}}};
  spec.kernels = {KernelSpec("ka", "a.cu", {4}), KernelSpec("kb", "b.cu", {4}), KernelSpec("kc", "b.cu", {4}),
                  KernelSpec("kd", "a.cu", {4})};
  kiln::Package package = open(build_package(spec));
  const std::vector<std::string> names = {"ka", "kb", "kc", "kd"};

  const int failures = run_concurrently(k_threads, k_iterations, [&](int t, int i) {
    const kiln::Kernel kernel = package.kernel(names[static_cast<std::size_t>(i + t) % names.size()]);
    int value = i;
    // Every third launch asks for 64 KiB (every kernel on both devices): the attribute race too.
    kernel.launch(1, 32, i % 3 == 0 ? 64 * 1024 : 0, nullptr, value);
  });
  EXPECT_EQ(failures, 0);
  std::vector<std::string> loads = fake->loads();
  std::sort(loads.begin(), loads.end());
  EXPECT_EQ(loads, (std::vector<std::string>{image_text("a.cu", "sm_80"), image_text("a.cu", "sm_90"),
                                             image_text("b.cu", "sm_80"), image_text("b.cu", "sm_90")}));
  const std::vector<FakeLaunch> launches = fake->launches();
  EXPECT_EQ(launches.size(), static_cast<std::size_t>(k_threads * k_iterations));
  for (const FakeLaunch& l : launches) {
    EXPECT_NE(l.image.find(l.device == 0 ? "sm_80" : "sm_90"), std::string::npos) << l.image;
  }
  // Once per (kernel, device): 4 kernels on 2 devices.
  EXPECT_EQ(fake->attribute_calls().size(), 8u);
}

TEST_F(RuntimeTest, OnOneDeviceThreadsWithAndWithoutAContextLaunchAtOnce) {
  // One device: a resolved kernel launches without asking which device is current. Odd threads start
  // with no context and launch a kernel the main thread resolved (the driver refuses the first
  // launch, Kiln makes device 0's primary context current and launches again); even threads ask for
  // the other kernels, which nothing has loaded yet, and launch them.
  PackageSpec spec;
  spec.units = {{"a.cu", {"sm_80", "sm_90"}}, {"b.cu", {"sm_80", "sm_90"}}};
  spec.kernels = {KernelSpec("ka", "a.cu", {4}), KernelSpec("kb", "b.cu", {4}), KernelSpec("kc", "b.cu", {4}),
                  KernelSpec("kd", "a.cu", {4})};
  kiln::Package package = open(build_package(spec));
  fake->make_current(0);
  const kiln::Kernel resolved = package.kernel("kd");
  const std::vector<std::string> names = {"ka", "kb", "kc"};
  std::atomic<bool> go{false};
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < k_threads; ++t) {
    threads.emplace_back([&, t] {
      fake->make_current(t % 2 == 1 ? -1 : 0);
      while (!go.load()) std::this_thread::yield();
      for (int i = 0; i < k_iterations; ++i) {
        try {
          int value = i;
          if (t % 2 == 1) {
            resolved.launch(1, 32, 0, nullptr, value);
          } else {
            package.kernel(names[static_cast<std::size_t>(i + t) % names.size()]).launch(1, 32, 0, nullptr, value);
          }
        } catch (const kiln::Error&) {
          ++failures;
        }
      }
    });
  }
  go = true;
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
  std::vector<std::string> loads = fake->loads();
  std::sort(loads.begin(), loads.end());
  EXPECT_EQ(loads, (std::vector<std::string>{image_text("a.cu", "sm_90"), image_text("b.cu", "sm_90")}));
  EXPECT_EQ(fake->launches().size(), static_cast<std::size_t>(k_threads * k_iterations));
  EXPECT_EQ(fake->primary_retains(), k_threads / 2);  // once for each thread that started without one
}

}  // namespace
}  // namespace kiln::testing
