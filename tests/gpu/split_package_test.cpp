// Issue 16 on the GPU: arch.kiln split by kiln split into arch_split.kiln (compute_80) and its
// companions arch_split.cc8.kiln (sm_80) and arch_split.cc9.kiln (sm_90). With the companions
// installed, a kernel loads the device's cubin from its major's file; with the main file alone it
// runs from the PTX, and a kernel only the cubins hold fails naming the file to install.
#include "gpu_support.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

namespace kiln::gpu_test {
namespace {

namespace fs = std::filesystem;

int reported_arch(kiln::Package& package, const char* kernel) {
  DeviceBuffer<int> arch(1);
  package.kernel(kernel).launch(1, 1, 0, nullptr, arch.get());
  synchronize();
  return arch.download()[0];
}

TEST(SplitPackage, TheDevicesCompanionServesItsCubins) {
  kiln::Package package = open_package("arch_split.kiln");
  const int arch = device_arch();
  // What the unsplit package loads (arch_kernels_test.cpp): sm_80 on 8.x, sm_90 on 9.0, else PTX.
  const std::string target = arch / 10 == 8 ? "sm_80" : arch == 90 ? "sm_90" : "compute_80";
  EXPECT_EQ(package.image("always").target, target);
  EXPECT_EQ(reported_arch(package, "always"), target == "sm_90" ? 900 : 800);
  // before_sm90 is in the sm_80 cubin and the PTX, not in sm_90's file.
  EXPECT_EQ(package.image("before_sm90").target, arch / 10 == 8 ? "sm_80" : "compute_80");
  EXPECT_EQ(reported_arch(package, "before_sm90"), 800);
  if (arch == 90) {
    EXPECT_EQ(package.image("from_sm90").target, "sm_90");
    EXPECT_EQ(reported_arch(package, "from_sm90"), 900);
  }
}

TEST(SplitPackage, WithoutItsCompanionTheMainFileRunsThePtxOrNamesTheFile) {
  const fs::path directory = fs::temp_directory_path() / ("kiln-gpu-split-" + std::to_string(getpid()));
  fs::create_directories(directory);
  const fs::path main = directory / "arch_split.kiln";
  fs::copy_file(package_path("arch_split.kiln"), main, fs::copy_options::overwrite_existing);
  {
    kiln::Package package = kiln::Package::open_file(main.string());
    EXPECT_EQ(package.image("always").target, "compute_80");
    EXPECT_EQ(reported_arch(package, "always"), 800);
    try {
      package.kernel("from_sm90");   // only the sm_90 cubin holds it
      ADD_FAILURE() << "from_sm90 loaded without arch_split.cc9.kiln";
    } catch (const kiln::Error& e) {
      EXPECT_EQ(e.status(), KILN_STATUS_NO_IMAGE_FOR_DEVICE);
      const int major = device_arch() / 10;
      if (major == 8 || major == 9) {
        const std::string file = (directory / ("arch_split.cc" + std::to_string(major) + ".kiln")).string();
        EXPECT_NE(std::string(e.what()).find(file + ", which is not installed"), std::string::npos) << e.what();
      }
    }
  }
  fs::remove_all(directory);
}

}  // namespace
}  // namespace kiln::gpu_test
