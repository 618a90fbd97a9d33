// The four ways runtime_load gets from a kernel's name to its first finished launch, each run once
// per process with the package open and the context current (both done, and timed, beforehand).
#pragma once

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kiln::bench {

// --floor-image's values (README.md, "Where the image lies"); the first is the default.
inline constexpr const char* k_floor_images[] = {"heap", "anonymous", "pread", "pread-file-region", "pread-elsewhere"};

// A kernel the benchmark knows how to launch and check.
struct KernelSpec {
  const char* name;      // as asked for: "saxpy", "block_sum<float, 256>"
  const char* source;    // its source among the example's kernels (for NVRTC)
  bool templated;        // a name expression NVRTC must instantiate
  unsigned block;        // threads per block: the template's BLOCK for block_sum
};
const KernelSpec& find_kernel_spec(const std::string& name);  // throws for an unknown name

// Device memory and parameters for one launch of a known kernel, prepared before timing.
class Launch {
public:
  explicit Launch(const KernelSpec& spec);
  ~Launch();
  Launch(const Launch&) = delete;
  Launch& operator=(const Launch&) = delete;

  void** args() { return m_args; }
  std::size_t arg_count() const { return m_arg_count; }
  unsigned grid() const { return m_grid; }
  unsigned block() const { return m_block; }
  // Reads the results back and compares a few with what the kernel must have written.
  bool check() const;

private:
  const KernelSpec& m_spec;
  std::uint64_t m_in = 0, m_out = 0;  // CUdeviceptr
  float m_a = 2.0f;
  int m_n = 1 << 20;
  void* m_args[4] = {};
  std::size_t m_arg_count = 0;
  unsigned m_grid = 0, m_block = 0;
};

// What the benchmark knows before timing: where things are and what the device is.
struct Inputs {
  std::string package;        // the .kiln file
  std::string sources;        // the example's kernels/ directory (for NVRTC)
  std::string cuda_include;   // the toolkit's include directory (for NVRTC: CUB)
  int arch = 0;               // compute capability major * 10 + minor
  bool integrated = false;
  int driver_version = 0;     // cuDriverGetVersion
  // Where each path's image lies when the driver loads it, to tell whether that is what makes
  // cuLibraryLoadData slower in Kiln's path than in the floor's (README, "Where the image lies"):
  // (b) "heap": a vector, as by default; "anonymous": a fresh anonymous mapping, at the page offset
  // the image has in the file, as Kiln reads it; "pread", "pread-file-region", "pread-elsewhere":
  // the image read from the file just before the clock (floor_cases.cpp says where). (a, d) "file":
  // kiln_package_open_file, as by default; "memory": the file read beforehand and opened with
  // kiln_package_open_memory (a copy).
  std::string floor_image = "heap";   // one of k_floor_images
  std::string kiln_open = "file";
};

struct Timing {
  double total_ms = 0;        // name (or source) to the end of the synchronize after the first launch
  double driver_ms = -1;      // (d) time inside driver calls, the final synchronize included
  double compile_ms = -1;     // (c) NVRTC alone
  double driver_load_ms = -1; // (d) load_system_driver() before timing (dlopen, cuGetProcAddress)
  std::uint64_t driver_calls = 0;      // (d) from the name to the synchronize, which is one of them
  std::uint64_t open_driver_calls = 0; // (d) made by the open, before the clock starts
  std::string image;          // (b, c) the image loaded
  // (b, d) milliseconds inside each driver call of the first launch, by name, the synchronize included:
  // where the floor and Kiln's path spend the driver's time differently.
  std::vector<std::pair<std::string, double>> driver_steps;
};

Timing run_kiln(const Inputs& inputs, const KernelSpec& spec, Launch& launch);        // (a) the C ABI
Timing run_by_hand(const Inputs& inputs, const KernelSpec& spec, Launch& launch);     // (b) the floor
Timing run_nvrtc(const Inputs& inputs, const KernelSpec& spec, Launch& launch);       // (c) JIT from source
Timing run_kiln_timed(const Inputs& inputs, const KernelSpec& spec, Launch& launch);  // (d) Kiln's own share

// Called by every case just before its clock starts. Each case's preparations leave the heap in
// another state (the floor reads the whole package into a string, which leaves up to 128 KiB of freed
// heap behind), and the driver's allocations inside cuLibraryLoadData fault in whatever heap pages are
// new: measured on an H200, 17-25 minor faults and +0.03-0.05 ms in a fresh heap, none in a warmed
// one. Trimming the heap gives every case the same start, so a difference between cases is the work
// each does, not what its setup happened to allocate.
void settle_heap();
// The whole file at `path`; BenchError when it cannot be read.
std::string read_file(const std::string& path);

// cuCtxSynchronize, for the files that do not include cuda.h.
void synchronize();

// A failed step: the benchmark prints it and exits 2.
using Clock = std::chrono::steady_clock;

// Milliseconds since `start`.
inline double since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

struct BenchError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace kiln::bench
