// CUDA from NVIDIA's wheels (compile/wheel_toolkit.hpp) on fake trees: where kiln looks, what counts
// as a toolkit, what a unit lacking a wheel is told; and which NVRTC and nvJitLink files the build
// loads when the ones kiln was built against are absent (compile/nvrtc_library.hpp).
#include "compile/nvrtc_library.hpp"
#include "compile/wheel_toolkit.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;
using compile::CompilerFiles;

class WheelTree : public ::testing::Test {
protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() /
            ("kiln-wheel-test-" + std::to_string(getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir);
  }
  void TearDown() override { fs::remove_all(m_dir); }

  fs::path touch(const fs::path& relative) {
    const fs::path file = m_dir / relative;
    fs::create_directories(file.parent_path());
    std::ofstream(file) << "x";
    return file;
  }

  fs::path m_dir;
};

TEST_F(WheelTree, PlacesAreAboveKilnsDirectoryThenEachPythonOfTheVirtualEnvironment) {
  touch("venv/lib/python3.12/x");
  touch("venv/lib/python3.11/x");
  touch("venv/lib/other/x");
  const auto places = compile::wheel_places("/sp/kiln/_prefix/bin/kiln", m_dir / "venv");
  const std::vector<std::pair<std::string, fs::path>> expected = {
      {"beside kiln", "/sp/kiln/_prefix/nvidia/cu13"},
      {"beside kiln", "/sp/kiln/nvidia/cu13"},
      {"beside kiln", "/sp/nvidia/cu13"},
      {"beside kiln", "/nvidia/cu13"},
      {"$VIRTUAL_ENV", m_dir / "venv/lib/python3.11/site-packages/nvidia/cu13"},
      {"$VIRTUAL_ENV", m_dir / "venv/lib/python3.12/site-packages/nvidia/cu13"}};
  EXPECT_EQ(places, expected);
}

TEST_F(WheelTree, AVirtualEnvironmentWithoutPythonIsStillNamedAndNoArgumentsGiveNoPlaces) {
  const auto places = compile::wheel_places({}, m_dir / "empty");
  ASSERT_EQ(places.size(), 1u);
  EXPECT_EQ(places[0].second, m_dir / "empty/lib/python3.*/site-packages/nvidia/cu13");
  EXPECT_TRUE(compile::wheel_places({}, {}).empty());
  EXPECT_EQ(compile::wheel_places("/kiln", {}).size(), 0u) << "no directory above the root";
  EXPECT_TRUE(compile::wheel_places({}, "venv").empty()) << "a relative $VIRTUAL_ENV";
}

// The cuobjdump wheel alone (the project's own .venv has it) is no toolkit; nor is half of one.
TEST_F(WheelTree, ATreeCountsOnlyWithNvrtcAndNvJitLink) {
  const fs::path root = m_dir / "nvidia" / "cu13";
  touch("nvidia/cu13/bin/cuobjdump");
  EXPECT_FALSE(compile::is_wheel_toolkit(root));
  touch("nvidia/cu13/lib/libnvrtc.so.13");
  EXPECT_FALSE(compile::is_wheel_toolkit(root)) << "no nvJitLink";
  touch("nvidia/cu13/lib/libnvJitLink.so.13");
  EXPECT_TRUE(compile::is_wheel_toolkit(root));
  EXPECT_TRUE(compile::is_wheel_tree(root));
  EXPECT_FALSE(compile::is_wheel_tree("/usr/local/cuda"));
  EXPECT_FALSE(compile::is_wheel_tree(m_dir / "cu13"));
}

TEST_F(WheelTree, AMissingPieceNamesTheWheelsOfTheTreesRelease) {
  const fs::path root = m_dir / "nvidia" / "cu13";
  touch("nvidia/cu13/lib/libnvrtc-builtins.so.13.0");
  EXPECT_EQ(compile::missing_wheel_nvcc(root),
            "this unit needs nvcc (it has host code, or NVRTC cannot compile it), which NVIDIA's wheels at " +
                root.string() +
                " lack: pip install nvidia-cuda-nvcc==13.0.* nvidia-nvvm==13.0.* nvidia-cuda-crt==13.0.* "
                "nvidia-cuda-runtime==13.0.*");
  EXPECT_EQ(compile::missing_wheel_cccl(root),
            "CCCL's headers (<cub/...>, <thrust/...>, <cuda/...>) are not in NVIDIA's wheels at " + root.string() +
                ": pip install nvidia-cuda-cccl==13.0.*");
  touch("nvidia/cu13/bin/nvcc");
  touch("nvidia/cu13/include/cccl/cub/cub.cuh");
  EXPECT_EQ(compile::missing_wheel_nvcc(root), "") << "present";
  EXPECT_EQ(compile::missing_wheel_cccl(root), "") << "present";
  EXPECT_EQ(compile::missing_wheel_nvcc(m_dir / "cuda"), "") << "a system toolkit has its own message";
  EXPECT_EQ(compile::missing_wheel_cccl(m_dir / "cuda"), "");
}

TEST(CcclHeaders, NamedAsNvrtcAndGccSayTheyAreMissing) {
  EXPECT_TRUE(compile::names_a_cccl_header("a.cu(3): catastrophic error: cannot open source file \"cub/block/x.cuh\""));
  EXPECT_TRUE(compile::names_a_cccl_header("a.cu:3:10: fatal error: thrust/sort.h: No such file or directory"));
  EXPECT_TRUE(compile::names_a_cccl_header("#include <cuda/std/atomic>"));
  EXPECT_FALSE(compile::names_a_cccl_header("a.cu:3:10: fatal error: mine/cub.h: No such file or directory"));
  EXPECT_FALSE(compile::names_a_cccl_header("/usr/local/cuda/include/x.h: error: expected ';'"));
}

TEST_F(WheelTree, TheBuiltInLibrariesWhileTheyExistElseTheToolkitsBySoname) {
  const CompilerFiles built_in{touch("built/libnvrtc.so"), touch("built/libnvJitLink.so")};
  touch("wheels/lib/libnvrtc.so.13");
  touch("wheels/lib/libnvJitLink.so.13");
  const auto files = [](const CompilerFiles& f) { return std::pair(f.nvrtc, f.nvjitlink); };
  EXPECT_EQ(files(compile::compiler_files(built_in, m_dir / "wheels", 13)), files(built_in));

  fs::remove(built_in.nvjitlink);   // one missing is enough: a pair from one place
  EXPECT_EQ(files(compile::compiler_files(built_in, m_dir / "wheels", 13)),
            std::pair(m_dir / "wheels/lib/libnvrtc.so.13", m_dir / "wheels/lib/libnvJitLink.so.13"));
  EXPECT_EQ(files(compile::compiler_files(built_in, {}, 13)), files(built_in)) << "no toolkit found yet";

  touch("system/lib64/libnvrtc.so.13");
  touch("system/lib64/libnvJitLink.so.13");
  touch("system/lib/libnvrtc.so.13");
  touch("system/lib/libnvJitLink.so.13");
  EXPECT_EQ(files(compile::compiler_files(built_in, m_dir / "system", 13)),
            std::pair(m_dir / "system/lib64/libnvrtc.so.13", m_dir / "system/lib64/libnvJitLink.so.13"));
  // Neither place holds NVRTC 12: the built-in files, whose absence the load then reports.
  EXPECT_EQ(files(compile::compiler_files(built_in, m_dir / "system", 12)), files(built_in));
}

}  // namespace
}  // namespace kiln::test
