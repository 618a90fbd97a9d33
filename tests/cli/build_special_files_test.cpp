// FIFOs, sockets and devices are never read and never replaced: given as a manifest, a kernel, host
// or Python source, a header or a package, each is refused at once, naming the file and what it is
// (a FIFO with no writer would block an open, a device may never end); -o and --depfile refuse
// anything but a regular file or a new path, with nothing written. Every run here is bounded: a hang
// fails its test (k_timed_out) instead of the suite.
#include "kiln_runner.hpp"

#include <gtest/gtest.h>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

namespace kiln::test {
namespace {

namespace fs = std::filesystem;

constexpr int k_bound = 120;   // seconds: a refused input takes a fraction of one

void make_fifo(const fs::path& path) {
  fs::create_directories(path.parent_path());
  ASSERT_EQ(mkfifo(path.c_str(), 0644), 0) << path;
}

fs::path write_project(const ScratchDir& dir, const std::string& source_text = "extern \"C\" __global__ void k(int* x) { x[0] = 1; }\n") {
  const fs::path p = dir.path() / "p";
  write_text(p / "kiln.toml", "targets = [\"sm_80\"]\n[[source]]\npath = \"kernels/k.cu\"\n");
  write_text(p / "kernels/k.cu", source_text);
  return p;
}

void expect_refused(const RunResult& r, int exit_code, const std::string& file, const std::string& what) {
  EXPECT_NE(r.exit_code, k_timed_out) << "kiln waited on " << file;
  EXPECT_EQ(r.exit_code, exit_code) << r.err;
  EXPECT_NE(r.err.find(file), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(what), std::string::npos) << r.err;
}

TEST(BuildSpecialFiles, AManifestThatIsAFifoIsRefusedNamingIt) {
  ScratchDir dir;
  make_fifo(dir.path() / "p/kiln.toml");
  expect_refused(run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path(), {}, k_bound), k_bad_input,
                 "p/kiln.toml", "it is a FIFO, not a regular file");
  EXPECT_FALSE(fs::exists(dir.path() / "out.kiln"));
}

TEST(BuildSpecialFiles, AKernelSourceThatIsAFifoIsRefusedNamingIt) {
  ScratchDir dir;
  const fs::path p = write_project(dir);
  fs::remove(p / "kernels/k.cu");
  make_fifo(p / "kernels/k.cu");
  expect_refused(run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path(), {}, k_bound), k_bad_input,
                 "kernels/k.cu", "is a FIFO, not a regular file");
}

// The scan's clang opens headers itself (scan/regular_files.hpp); the compilers would wait on them after.
TEST(BuildSpecialFiles, AHeaderThatIsAFifoOrADeviceStopsTheBuildNamingIt) {
  ScratchDir dir;
  const fs::path p = write_project(dir, "#include \"fifo.cuh\"\nextern \"C\" __global__ void k(int* x) { x[0] = 1; }\n");
  make_fifo(p / "kernels/fifo.cuh");
  const RunResult fifo = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path(), {}, k_bound);
  expect_refused(fifo, k_bad_input, "fifo.cuh", "not a regular file; no package written");
  EXPECT_FALSE(fs::exists(dir.path() / "out.kiln"));

  write_text(p / "kernels/k.cu", "#include \"/dev/zero\"\nextern \"C\" __global__ void k(int* x) { x[0] = 1; }\n");
  expect_refused(run_kiln({"build", "p/kiln.toml", "-o", "out.kiln"}, dir.path(), {}, k_bound), k_bad_input,
                 "/dev/zero", "not a regular file; no package written");
}

TEST(BuildSpecialFiles, HostAndPythonSourcesThatAreFifosAreRefusedNamingThem) {
  ScratchDir dir;
  write_project(dir);
  make_fifo(dir.path() / "host.cpp");
  expect_refused(run_kiln({"build", "p/kiln.toml", "-o", "out.kiln", "--host-source", "host.cpp"}, dir.path(), {}, k_bound),
                 k_bad_input, "host.cpp", "is a FIFO, not a regular file");
  make_fifo(dir.path() / "requests.py");
  expect_refused(
      run_kiln({"build", "p/kiln.toml", "-o", "out.kiln", "--python-source", "requests.py"}, dir.path(), {}, k_bound),
      k_bad_input, "requests.py", "it is a FIFO, not a regular file");
}

TEST(BuildSpecialFiles, APackageThatIsAFifoOrASocketIsRefusedByVerifyAndInspect) {
  ScratchDir dir;
  make_fifo(dir.path() / "fifo.kiln");
  for (const char* command : {"verify", "inspect"})
    expect_refused(run_kiln({command, "fifo.kiln"}, dir.path(), {}, k_bound), k_bad_input, "fifo.kiln",
                   "it is a FIFO, not a regular file");
  const int listening = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  const std::string socket_path = (dir.path() / "socket.kiln").string();
  ASSERT_LT(socket_path.size(), sizeof address.sun_path);
  socket_path.copy(address.sun_path, socket_path.size());
  ASSERT_EQ(bind(listening, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  expect_refused(run_kiln({"verify", "socket.kiln"}, dir.path(), {}, k_bound), k_bad_input, "socket.kiln",
                 "it is a socket, not a regular file");
  close(listening);
}

// Where -o or --depfile names a device (here through a link to /dev/null, so that a failing test
// replaces the link, never the system's /dev/null), a FIFO or a directory, nothing is written.
TEST(BuildSpecialFiles, OutputsThatAreNotRegularFilesAreRefusedAndKeptAsTheyAre) {
  ScratchDir dir;
  write_project(dir);
  fs::create_symlink("/dev/null", dir.path() / "null");
  make_fifo(dir.path() / "fifo");
  fs::create_directories(dir.path() / "directory");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"-o", "null"}, "refusing to write the package to null: it is a character device; nothing written (-o takes "
                       "a regular file or a new path)"},
      {{"-o", "fifo"}, "refusing to write the package to fifo: it is a FIFO"},
      {{"-o", "out.kiln", "--depfile", "null"}, "refusing to write the depfile to null: it is a character device; "
                                                "nothing written (--depfile takes a regular file or a new path; "
                                                "--no-depfile writes none)"},
      {{"-o", "out.kiln", "--depfile", "directory"}, "refusing to write the depfile to directory: it is a directory"},
  };
  for (const auto& [outputs, message] : cases) {
    std::vector<std::string> args = {"build", "p/kiln.toml"};
    args.insert(args.end(), outputs.begin(), outputs.end());
    expect_refused(run_kiln(args, dir.path(), {}, k_bound), k_usage, "", message);
    EXPECT_FALSE(fs::exists(dir.path() / "out.kiln")) << "nothing written";
  }
  EXPECT_TRUE(fs::is_symlink(dir.path() / "null"));
  EXPECT_TRUE(fs::is_fifo(dir.path() / "fifo"));
  EXPECT_TRUE(fs::is_directory(dir.path() / "directory"));
}

TEST(BuildSpecialFiles, NoDepfileWritesNoneAndTakesNoDepfileOption) {
  ScratchDir dir;
  write_project(dir);
  const RunResult built = run_kiln({"build", "p/kiln.toml", "-o", "out.kiln", "--no-depfile"}, dir.path(), {}, k_bound);
  ASSERT_EQ(built.exit_code, 0) << built.err;
  EXPECT_TRUE(fs::exists(dir.path() / "out.kiln"));
  EXPECT_FALSE(fs::exists(dir.path() / "out.kiln.d"));
  const RunResult both =
      run_kiln({"build", "p/kiln.toml", "-o", "out.kiln", "--no-depfile", "--depfile", "x.d"}, dir.path(), {}, k_bound);
  EXPECT_EQ(both.exit_code, k_usage) << both.err;
  EXPECT_NE(both.err.find("--depfile excludes --no-depfile"), std::string::npos) << both.err;
}

}  // namespace
}  // namespace kiln::test
