// image_parts: the lever of issue 16's point 5, measured before it is built. One unit of --kernels
// instantiations of a template kernel is compiled once by NVRTC (-dlto) for the device's SM; then
//
//   whole   nvJitLink links every kernel into one cubin (what Kiln does today)
//   parts   nvJitLink links the same LTO-IR again per part of P kernels (-kernels-used=...), every
//           part, on --threads threads: CPU seconds (sum over parts) and wall seconds
//   small   a unit of 10 instantiations, compiled and linked alone: the first-launch floor
//
// and on the GPU, the first launch of one kernel from each cubin: cuLibraryLoadData +
// cuLibraryGetKernel + cuLaunchKernel + cuCtxSynchronize, median of --rounds (each round loads the
// cubin afresh and unloads it after; the context exists before). Prints one Markdown table.
//
//   image_parts_bench [--kernels 10000] [--parts 16,64,256] [--threads N] [--rounds 9]
#include <cuda.h>
#include <nvJitLink.h>
#include <nvrtc.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "image_parts_bench: %s\n", why.c_str());
  std::exit(1);
}

// A kernel whose body differs a little per instantiation, so that no two compile to the same code.
std::string unit_source(int kernels) {
  std::string source =
      "template <int N> __global__ void tile(float* out, const float* in, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i >= n) return;\n"
      "  float v = in[i];\n"
      "  for (int j = 0; j < (N % 7) + 1; ++j) v = v * 1.0001f + N;\n"
      "  out[i] = v;\n"
      "}\n";
  for (int i = 0; i < kernels; ++i) source += "template __global__ void tile<" + std::to_string(i) + ">(float*, const float*, int);\n";
  return source;
}

struct Compiled {
  std::vector<char> ltoir;
  std::vector<std::string> lowered;   // per instantiation
  double seconds = 0;
};

Compiled compile(int kernels, const std::string& arch) {
  const auto start = Clock::now();
  const std::string source = unit_source(kernels);
  nvrtcProgram program = nullptr;
  nvrtcCreateProgram(&program, source.c_str(), "tile.cu", 0, nullptr, nullptr);
  std::vector<std::string> names;
  for (int i = 0; i < kernels; ++i) names.push_back("tile<" + std::to_string(i) + ">");
  for (const std::string& name : names) nvrtcAddNameExpression(program, name.c_str());
  const std::string arch_option = "-arch=" + arch;
  const char* options[] = {arch_option.c_str(), "-dlto"};
  if (nvrtcCompileProgram(program, 2, options) != NVRTC_SUCCESS) die("NVRTC failed to compile the unit");
  Compiled out;
  std::size_t size = 0;
  nvrtcGetLTOIRSize(program, &size);
  out.ltoir.resize(size);
  nvrtcGetLTOIR(program, out.ltoir.data());
  for (const std::string& name : names) {
    const char* lowered = nullptr;
    nvrtcGetLoweredName(program, name.c_str(), &lowered);
    out.lowered.emplace_back(lowered);
  }
  nvrtcDestroyProgram(&program);
  out.seconds = seconds_since(start);
  return out;
}

// Links `kernels` of the unit (all of them when empty) into a cubin.
std::vector<char> link(const Compiled& unit, const std::string& arch, const std::vector<std::string>& kernels) {
  std::vector<std::string> options = {"-arch=" + arch, "-lto"};
  for (const std::string& kernel : kernels) options.push_back("-kernels-used=" + kernel);
  std::vector<const char*> argv;
  for (const std::string& option : options) argv.push_back(option.c_str());
  nvJitLinkHandle linker = nullptr;
  if (nvJitLinkCreate(&linker, static_cast<std::uint32_t>(argv.size()), argv.data()) != NVJITLINK_SUCCESS) die("nvJitLinkCreate");
  if (nvJitLinkAddData(linker, NVJITLINK_INPUT_LTOIR, unit.ltoir.data(), unit.ltoir.size(), "tile") != NVJITLINK_SUCCESS ||
      nvJitLinkComplete(linker) != NVJITLINK_SUCCESS)
    die("nvJitLink failed");
  std::size_t size = 0;
  nvJitLinkGetLinkedCubinSize(linker, &size);
  std::vector<char> cubin(size);
  nvJitLinkGetLinkedCubin(linker, cubin.data());
  nvJitLinkDestroy(&linker);
  return cubin;
}

struct PartsFigures {
  int parts = 0;
  double cpu_seconds = 0, wall_seconds = 0;
  std::vector<char> first_part;
};

PartsFigures link_parts(const Compiled& unit, const std::string& arch, int per_part, int threads) {
  const int count = static_cast<int>(unit.lowered.size());
  PartsFigures figures;
  figures.parts = (count + per_part - 1) / per_part;
  std::vector<double> seconds(static_cast<std::size_t>(figures.parts));
  std::atomic<int> next{0};
  const auto start = Clock::now();
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      for (int part = next++; part < figures.parts; part = next++) {
        const auto part_start = Clock::now();
        const auto first = unit.lowered.begin() + part * per_part;
        std::vector<char> cubin = link(unit, arch, {first, first + std::min(per_part, count - part * per_part)});
        seconds[static_cast<std::size_t>(part)] = seconds_since(part_start);
        if (part == 0) figures.first_part = std::move(cubin);
      }
    });
  }
  for (std::thread& worker : workers) worker.join();
  figures.wall_seconds = seconds_since(start);
  for (const double s : seconds) figures.cpu_seconds += s;
  return figures;
}

std::string shown_ms(double ms) { return ms < 0 ? std::string("n/a") : std::to_string(ms).substr(0, std::to_string(ms).find('.') + 4); }

// The median first launch of `kernel` from `cubin`, in milliseconds; -1 without a GPU.
double first_launch_ms(bool gpu, const std::vector<char>& cubin, const std::string& kernel, int rounds) {
  if (!gpu) return -1;
  CUdeviceptr buffers[2] = {};
  cuMemAlloc(&buffers[0], 1024);
  cuMemAlloc(&buffers[1], 1024);
  std::vector<double> times;
  for (int round = 0; round < rounds; ++round) {
    const auto start = Clock::now();
    CUlibrary library = nullptr;
    CUkernel function = nullptr;
    if (cuLibraryLoadData(&library, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0) != CUDA_SUCCESS ||
        cuLibraryGetKernel(&function, library, kernel.c_str()) != CUDA_SUCCESS)
      die("loading " + kernel);
    int n = 32;
    void* args[] = {&buffers[0], &buffers[1], &n};
    if (cuLaunchKernel(reinterpret_cast<CUfunction>(function), 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr) != CUDA_SUCCESS ||
        cuCtxSynchronize() != CUDA_SUCCESS)
      die("launching " + kernel);
    times.push_back(seconds_since(start) * 1000);
    cuLibraryUnload(library);
  }
  cuMemFree(buffers[0]);
  cuMemFree(buffers[1]);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::vector<int> parse_list(const char* text) {
  std::vector<int> values;
  for (const char* p = text; *p;) {
    values.push_back(std::atoi(p));
    p = std::strchr(p, ',');
    if (!p) break;
    ++p;
  }
  return values;
}

}  // namespace

int main(int argc, char** argv) {
  int kernels = 10000, rounds = 9;
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<int> parts = {16, 64, 256};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--kernels") kernels = std::atoi(argv[i + 1]);
    else if (flag == "--parts") parts = parse_list(argv[i + 1]);
    else if (flag == "--threads") threads = std::atoi(argv[i + 1]);
    else if (flag == "--rounds") rounds = std::atoi(argv[i + 1]);
    else die("unknown option " + flag);
  }
  // The device's SM, or sm_90 without one (build figures only).
  bool gpu = cuInit(0) == CUDA_SUCCESS;
  CUdevice device = 0;
  CUcontext context = nullptr;
  int major = 9, minor = 0;
  if (gpu && cuDeviceGet(&device, 0) == CUDA_SUCCESS && cuDevicePrimaryCtxRetain(&context, device) == CUDA_SUCCESS &&
      cuCtxSetCurrent(context) == CUDA_SUCCESS) {
    cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
    cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
  } else {
    gpu = false;
  }
  const std::string arch = "sm_" + std::to_string(major * 10 + minor);

  const Compiled small = compile(10, arch);
  const std::vector<char> small_cubin = link(small, arch, {});
  const Compiled unit = compile(kernels, arch);
  const auto whole_start = Clock::now();
  const std::vector<char> whole = link(unit, arch, {});
  const double whole_seconds = seconds_since(whole_start);

  std::printf("%d instantiations for %s, NVRTC -dlto %.1f s, %d link threads, first launch median of %d%s\n\n",
              kernels, arch.c_str(), unit.seconds, threads, rounds, gpu ? "" : " (no GPU: not measured)");
  std::printf("| image | kernels per image | images | cubin bytes (one) | link CPU s | link wall s | build CPU vs whole | first launch ms |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
  const double whole_build = unit.seconds + whole_seconds;
  std::printf("| 10-instantiation unit | 10 | 1 | %zu | | | | %s |\n", small_cubin.size(),
              shown_ms(first_launch_ms(gpu, small_cubin, small.lowered[0], rounds)).c_str());
  std::printf("| whole unit | %d | 1 | %zu | %.1f | %.1f | 1.00x | %s |\n", kernels, whole.size(), whole_seconds,
              whole_seconds, shown_ms(first_launch_ms(gpu, whole, unit.lowered[0], rounds)).c_str());
  for (const int per_part : parts) {
    const PartsFigures f = link_parts(unit, arch, per_part, threads);
    std::printf("| parts | %d | %d | %zu | %.1f | %.1f | %.2fx | %s |\n", per_part, f.parts, f.first_part.size(),
                f.cpu_seconds, f.wall_seconds, (unit.seconds + f.cpu_seconds) / whole_build,
                shown_ms(first_launch_ms(gpu, f.first_part, unit.lowered[0], rounds)).c_str());
    std::fflush(stdout);
  }
  if (context) cuDevicePrimaryCtxRelease(device);
  return 0;
}
