// Processes sharing the run-time cache (rtc_probe, real NVRTC and nvJitLink, no GPU needed): 16 that
// miss one kernel at once leave one valid entry and all get the kernel; one killed mid-compile leaves
// nothing that is used; a damaged entry is replaced; a cache directory or HOME that cannot be
// written means a warning and memory only, never a failure.
#include "store/direct_record.hpp"
#include "writer/package_writer.hpp"
#include "util/file_io.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <thread>

namespace kiln::rtc {
namespace {

namespace fs = std::filesystem;

const char* k_source = R"(#include "common.cuh"
namespace ops {
template <typename T> __global__ void shift(T* x, T by, int n) {
  const int i = global_index();
  if (i < n) x[i] += by;
}
}  // namespace ops
)";

struct ProbeRun {
  int status = -1;
  std::string out;
};

class ProcessesTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!fs::exists("/usr/local/cuda/lib64/libnvrtc.so.13"))
      GTEST_SKIP() << "no NVRTC in /usr/local/cuda: the run-time compile tests need the toolkit";
    m_dir = fs::temp_directory_path() /
            ("kiln-processes-" + std::to_string(getpid()) + "-" + std::to_string(std::random_device{}()));
    fs::create_directories(m_dir);
    format::PackageContents contents;
    contents.targets = {"sm_80"};
    contents.units = {format::PackageUnit{"kernels/shift.cu", {}}};
    format::PackageCarriedUnit carried;
    carried.unit_source = "kernels/shift.cu";
    carried.source = {"kernels/shift.cu", k_source};
    carried.headers = {{"include/common.cuh", "#pragma once\n__device__ inline int global_index() {\n"
                                              "  return blockIdx.x * blockDim.x + threadIdx.x;\n}\n"}};
    carried.include_dirs = {"include"};
    carried.kernel_templates = {"ops::shift"};
    carried.nvrtc_version = "13.0";
    contents.carried = {carried};
    const Result<std::vector<std::byte>> written = format::write_package(contents);
    ASSERT_TRUE(written.ok()) << written.error().message;
    ASSERT_TRUE(write_file_atomically(m_dir / "carried.kiln", *written));
  }
  void TearDown() override {
    std::error_code ignored;
    if (!m_dir.empty()) fs::remove_all(m_dir, ignored);
  }
  std::string command(const std::string& env, const std::string& extra = "") const {
    return "env " + env + " CUDA_PATH=/usr/local/cuda " KILN_TEST_RTC_PROBE " " + (m_dir / "carried.kiln").string() +
           " 'ops::shift<int>' sm_90 " + extra + " 2>&1";
  }
  std::string cache_env() const { return "KILN_CACHE_DIR=" + (m_dir / "cache").string(); }
  static ProbeRun finish(FILE* pipe) {
    ProbeRun run;
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, pipe)) run.out += buffer;
    run.status = pclose(pipe);
    return run;
  }
  ProbeRun probe(const std::string& env) const { return finish(popen(command(env).c_str(), "r")); }
  // Entries of the store holding compiled kernels (`memos`: the compiler's identity memo instead):
  // files under its two-hex-digit directories, but the direct records that lead to them.
  std::vector<fs::path> entries(bool memos = false) const {
    std::vector<fs::path> found;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(m_dir / "cache", ec), end; !ec && it != end; it.increment(ec)) {
      const std::string parent = it->path().parent_path().filename().string();
      if (!it->is_regular_file() || parent.size() != 2 || parent == "tm") continue;
      std::ifstream in(it->path(), std::ios::binary);
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      if (text.find(store::k_direct_record_magic) != std::string::npos) continue;
      if ((text.find("kiln-compiler-memo") != std::string::npos) == memos) found.push_back(it->path());
    }
    return found;
  }
  fs::path m_dir;
};

TEST_F(ProcessesTest, SixteenProcessesMissingOneKernelLeaveOneValidEntry) {
  std::vector<FILE*> pipes;
  for (int i = 0; i < 16; ++i) pipes.push_back(popen(command(cache_env()).c_str(), "r"));
  int produced = 0;
  for (FILE* pipe : pipes) {
    const ProbeRun run = finish(pipe);
    EXPECT_EQ(run.status, 0) << run.out;
    produced += run.out == "produced\n";
    EXPECT_TRUE(run.out == "produced\n" || run.out == "disk\n") << run.out;
  }
  EXPECT_GE(produced, 1);
  EXPECT_EQ(entries().size(), 1u) << "every process that compiled published the same entry";
  EXPECT_EQ(entries(/*memos=*/true).size(), 1u) << "the compiler's identity, for hits that load no NVRTC";
  // A hit needs the compiler's versions for its key, and takes them from the memo: no NVRTC is loaded.
  const ProbeRun later = finish(popen(command(cache_env(), "--nvrtc").c_str(), "r"));
  EXPECT_EQ(later.out, "disk no-nvrtc\n");
}

TEST_F(ProcessesTest, AProcessKilledWhileCompilingLeavesNothingThatIsUsed) {
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", ("exec " + command(cache_env()) + " >/dev/null").c_str(), nullptr);
    _exit(127);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  ::kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_LE(entries().size(), 1u);
  const ProbeRun next = probe(cache_env());
  EXPECT_EQ(next.status, 0) << next.out;
  EXPECT_TRUE(next.out == "produced\n" || next.out == "disk\n") << next.out;
  EXPECT_EQ(entries().size(), 1u);
}

TEST_F(ProcessesTest, ADamagedEntryIsCompiledAgainAndReplaced) {
  ASSERT_EQ(probe(cache_env()).out, "produced\n");
  ASSERT_EQ(entries().size(), 1u);
  { std::ofstream(entries()[0], std::ios::binary | std::ios::trunc) << "kiln-store 1 not an entry"; }
  EXPECT_EQ(probe(cache_env()).out, "produced\n");
  EXPECT_EQ(probe(cache_env()).out, "disk\n");
}

TEST_F(ProcessesTest, ACacheDirectoryThatCannotBeWrittenIsAWarning) {
  { std::ofstream(m_dir / "a-file") << "x"; }
  const ProbeRun run = probe("KILN_CACHE_DIR=" + (m_dir / "a-file" / "kiln").string());
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("kiln: warning: cannot write the cache directory"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("produced\n"), std::string::npos) << run.out;
}

TEST_F(ProcessesTest, AHomeThatCannotBeWrittenIsAWarning) {
  { std::ofstream(m_dir / "home") << "not a directory"; }
  const ProbeRun run = probe("-u KILN_CACHE_DIR -u XDG_CACHE_HOME HOME=" + (m_dir / "home").string());
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("kept in memory only"), std::string::npos) << run.out;
}

TEST_F(ProcessesTest, KilnCacheZeroKeepsNothingAndSaysNothing) {
  const ProbeRun run = probe(cache_env() + " KILN_CACHE=0");
  EXPECT_EQ(run.out, "produced\n");
  EXPECT_TRUE(entries().empty());
}

}  // namespace
}  // namespace kiln::rtc
