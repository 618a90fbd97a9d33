// first_launch_cpu: Kiln's own time on the path from opening a package to a kernel's first launch,
// without a GPU (README.md). Each sample is a fresh process, as in runtime_load: the parent writes a
// package (or takes --package), then runs itself --runs times with --once, and prints the medians.
// A child names null_libcuda (a driver that answers every call at once and counts them) in
// KILN_LIBCUDA and loads it first, as a program that uses CUDA has libcuda loaded, so that
// libkiln.so binds to it at the open, as on the GPU machine (runtime_load's case (a)); then times,
// through the C interface as programs call it:
//
//   open     kiln_package_open_file (with the binding to the driver: dlopen, cuGetProcAddress, cuInit)
//   first    kiln_package_get_kernel + the first kiln_kernel_launch (runtime_load's clock)
//   second   a second kiln_kernel_launch of the same kernel
//
//   first_launch_cpu_bench [--runs 41] [--package FILE --kernel NAME] [--dir /tmp] [--cuda-not-loaded]
//
// --cuda-not-loaded: the driver is not loaded first, as in a program that opens a package before it
// uses CUDA: libkiln.so loads it at the first request, inside `first`.
#include "package_spec.hpp"

#include "kiln/kiln.h"

#include <dlfcn.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

extern char** environ;

namespace {

using Clock = std::chrono::steady_clock;

// Minor page faults of this process so far: a fresh process touches code and data for the first time.
long minor_faults() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_minflt;
}

double us_since(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

int fail(const char* what, const char* message) {
  std::fprintf(stderr, "first_launch_cpu_bench: %s: %s\n", what, message);
  return 2;
}

// One sample: prints "open first second calls_open calls_first calls_second first_faults" on stdout.
int once(const std::string& path, const std::string& kernel_name, bool cuda_loaded) {
  setenv("KILN_LIBCUDA", KILN_NULL_LIBCUDA, 1);
  // RTLD_NOLOAD: the counter without loading the library when the program "uses no CUDA" yet.
  void* libcuda = dlopen(KILN_NULL_LIBCUDA, RTLD_NOW | RTLD_LOCAL | (cuda_loaded ? 0 : RTLD_NOLOAD));
  if (cuda_loaded && !libcuda) return fail("loading the null libcuda", dlerror());
  using Calls = unsigned long long (*)();
  Calls calls_so_far = nullptr;
  const auto calls = [&]() -> unsigned long long {
    if (!calls_so_far) {
      if (!libcuda) libcuda = dlopen(KILN_NULL_LIBCUDA, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
      if (libcuda) calls_so_far = reinterpret_cast<Calls>(dlsym(libcuda, "kiln_null_libcuda_calls"));
    }
    return calls_so_far ? calls_so_far() : 0;
  };
  std::uint64_t args_storage[4] = {};
  void* args[4] = {&args_storage[0], &args_storage[1], &args_storage[2], &args_storage[3]};

  auto start = Clock::now();
  kiln_package* package = nullptr;
  if (kiln_package_open_file(path.c_str(), &package) != KILN_STATUS_SUCCESS) return fail("open", kiln_last_error());
  const double open_us = us_since(start);
  const unsigned long long calls_open = calls();

  const long faults_before = minor_faults();
  start = Clock::now();
  kiln_kernel* kernel = nullptr;
  if (kiln_package_get_kernel(package, kernel_name.c_str(), &kernel) != KILN_STATUS_SUCCESS)
    return fail("get_kernel", kiln_package_last_error(package));
  // The parameter count, as a program knows it: kiln_kernel_params reads the index (no driver).
  std::size_t count = 0;
  kiln_kernel_params(kernel, &count, nullptr, nullptr, 0);
  if (count == KILN_PARAMS_UNKNOWN || count > 4) count = 0;
  kiln_status launched = kiln_kernel_launch(kernel, kiln_dim3{64, 1, 1}, kiln_dim3{256, 1, 1}, 0, nullptr, args, count);
  const double first_us = us_since(start);
  const long first_faults = minor_faults() - faults_before;
  if (launched != KILN_STATUS_SUCCESS) return fail("launch", kiln_package_last_error(package));
  const unsigned long long calls_first = calls() - calls_open;

  start = Clock::now();
  launched = kiln_kernel_launch(kernel, kiln_dim3{64, 1, 1}, kiln_dim3{256, 1, 1}, 0, nullptr, args, count);
  const double second_us = us_since(start);
  if (launched != KILN_STATUS_SUCCESS) return fail("second launch", kiln_package_last_error(package));
  const unsigned long long calls_second = calls() - calls_open - calls_first;

  kiln_package_destroy(package);
  std::printf("%.3f %.3f %.3f %llu %llu %llu %ld\n", open_us, first_us, second_us, calls_open, calls_first,
              calls_second, first_faults);
  return 0;
}

// Runs this program with `arguments` and returns its stdout (empty on failure).
std::string run_child(const std::vector<std::string>& arguments) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return {};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
  std::vector<char*> argv;
  for (const std::string& a : arguments) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_fds[1]);
  std::string out;
  char buffer[256];
  for (ssize_t n; spawned == 0 && (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) out.append(buffer, static_cast<std::size_t>(n));
  close(pipe_fds[0]);
  int status = 0;
  if (spawned != 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return {};
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5)];
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> options{{"--runs", "41"}, {"--dir", "/tmp"}};
  bool child = false, cuda_loaded = true;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--once") == 0) child = true;
    else if (std::strcmp(argv[i], "--cuda-not-loaded") == 0) cuda_loaded = false;
    else if (i + 1 < argc) options[argv[i]] = argv[i + 1], ++i;
  }
  if (child) return once(options["--package"], options["--kernel"], cuda_loaded);

  std::vector<std::pair<std::string, std::string>> cases;  // package, kernel
  if (options.count("--package")) {
    cases.emplace_back(options["--package"], options.count("--kernel") ? options["--kernel"] : "saxpy");
  } else {
    const std::string path = options["--dir"] + "/first_launch_cpu.kiln";
    if (const kiln::Status written = kiln::bench::write_saxpy_like_package(path); !written)
      return fail("writing", written.error().message.c_str());
    cases.emplace_back(path, "saxpy");
    cases.emplace_back(path, "block_sum<float, 256>");
  }
  const int runs = std::max(1, std::atoi(options["--runs"].c_str()));
  std::printf("%-24s %9s %9s %12s %7s %10s   %s\n", "kernel", "open us", "first us", "(p10-p90)", "faults",
              "second us", "driver calls: open, first, second");
  for (const auto& [package, kernel] : cases) {
    std::vector<double> open, first, second, first_faults;
    std::string calls;
    for (int run = 0; run < runs; ++run) {
      std::vector<std::string> child_arguments = {argv[0], "--once", "--package", package, "--kernel", kernel};
      if (!cuda_loaded) child_arguments.push_back("--cuda-not-loaded");
      const std::string out = run_child(child_arguments);
      double o = 0, f = 0, s = 0;
      unsigned long long co = 0, cf = 0, cs = 0;
      long faults = 0;
      if (std::sscanf(out.c_str(), "%lf %lf %lf %llu %llu %llu %ld", &o, &f, &s, &co, &cf, &cs, &faults) != 7) {
        return fail("a sample failed", kernel.c_str());
      }
      open.push_back(o), first.push_back(f), second.push_back(s), first_faults.push_back(static_cast<double>(faults));
      calls = std::to_string(co) + ", " + std::to_string(cf) + ", " + std::to_string(cs);
    }
    char spread[64];
    std::snprintf(spread, sizeof spread, "%.1f-%.1f", percentile(first, 0.1), percentile(first, 0.9));
    std::printf("%-24s %9.1f %9.1f %12s %7.0f %10.2f   %s\n", kernel.c_str(), median(open), median(first), spread,
                median(first_faults), median(second), calls.c_str());
  }
  return 0;
}
