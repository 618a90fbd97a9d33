// kiln_first_launch: the first launch of one kernel from a Kiln package, through libkiln.so as
// programs use it. Each round opens the package, times kiln_package_get_kernel + kiln_kernel_launch
// + cuCtxSynchronize (the image's read, check, cuLibraryLoadData, cuLibraryGetKernel, the launch),
// then destroys the package, which unloads its libraries; the context exists before the first round.
// Prints one line per --package/--kernel pair: "<package> <kernel> <median ms> <min ms>".
//
//   kiln_first_launch [--rounds 9] --package P --kernel K [--package P --kernel K ...]
//
// The kernels take (float* out, const float* in, int n), as run.py's tile<N> does.
#include <cuda.h>
#include <kiln/kiln.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "kiln_first_launch: %s\n", why.c_str());
  std::exit(1);
}

double first_launch_ms(const std::string& path, const std::string& name, CUdeviceptr out, CUdeviceptr in) {
  kiln_package* package = nullptr;
  if (kiln_package_open_file(path.c_str(), &package) != KILN_STATUS_SUCCESS) die(kiln_last_error());
  const auto start = Clock::now();
  kiln_kernel* kernel = nullptr;
  if (kiln_package_get_kernel(package, name.c_str(), &kernel) != KILN_STATUS_SUCCESS)
    die(kiln_package_last_error(package));
  int n = 256;
  void* args[] = {&out, &in, &n};
  if (kiln_kernel_launch(kernel, {1, 1, 1}, {256, 1, 1}, 0, nullptr, args, 3) != KILN_STATUS_SUCCESS)
    die(kiln_package_last_error(package));
  if (cuCtxSynchronize() != CUDA_SUCCESS) die("cuCtxSynchronize failed");
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  kiln_package_destroy(package);
  return ms;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 9;
  std::vector<std::pair<std::string, std::string>> cases;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) die("missing value after " + arg);
    if (arg == "--rounds") rounds = std::max(1, std::atoi(argv[++i]));
    else if (arg == "--package") cases.emplace_back(argv[++i], "");
    else if (arg == "--kernel" && !cases.empty()) cases.back().second = argv[++i];
    else die("unknown argument " + arg);
  }
  if (cases.empty()) die("usage: kiln_first_launch [--rounds N] --package P --kernel K ...");
  CUdevice device = 0;
  CUcontext context = nullptr;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&device, 0) != CUDA_SUCCESS ||
      cuDevicePrimaryCtxRetain(&context, device) != CUDA_SUCCESS || cuCtxSetCurrent(context) != CUDA_SUCCESS)
    die("no GPU");
  CUdeviceptr out = 0, in = 0;
  if (cuMemAlloc(&out, 1024) != CUDA_SUCCESS || cuMemAlloc(&in, 1024) != CUDA_SUCCESS) die("cuMemAlloc failed");
  cuMemsetD8(in, 0, 1024);
  // Rounds interleave the cases, so that drift of the machine falls on all alike.
  std::vector<std::vector<double>> times(cases.size());
  for (std::size_t c = 0; c < cases.size(); ++c) first_launch_ms(cases[c].first, cases[c].second, out, in);   // warm-up
  for (int r = 0; r < rounds; ++r)
    for (std::size_t c = 0; c < cases.size(); ++c) times[c].push_back(first_launch_ms(cases[c].first, cases[c].second, out, in));
  for (std::size_t c = 0; c < cases.size(); ++c) {
    std::vector<double>& t = times[c];
    std::sort(t.begin(), t.end());
    std::printf("%s %s %.4f %.4f\n", cases[c].first.c_str(), cases[c].second.c_str(), t[t.size() / 2], t.front());
  }
  return 0;
}
