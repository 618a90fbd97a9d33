// (b) the floor: the image Kiln would choose, taken out of the package beforehand and loaded with
//     the driver's Library API directly, so only the driver's own work is timed.
// (c) just-in-time: the kernel's source compiled with NVRTC for the device, then loaded the same way.
#include "cases.hpp"
#include "driver_check.hpp"

#include "format/package_reader.hpp"
#include "platform/files.hpp"
#include "select/select_image.hpp"

#include <cuda.h>
#include <nvrtc.h>

#include <chrono>
#include <cstring>
#include <vector>

namespace kiln::bench {

namespace {

using bench::check;  // the driver overload, beside the NVRTC one below



void check(nvrtcResult result, const char* what) {
  if (result != NVRTC_SUCCESS) throw BenchError(std::string(what) + ": " + nvrtcGetErrorString(result));
}

// Loads `image`, resolves `lowered_name`, launches and waits: the driver's part of a first launch.
// Each call's time goes to `steps` (a clock read between calls, as TimingDriver reads one in (d)).
void load_and_launch(const void* image, const char* lowered_name, Launch& launch,
                     std::vector<std::pair<std::string, double>>& steps) {
  auto start = Clock::now();
  const auto step = [&](const char* name) {
    steps.emplace_back(name, since(start));
    start = Clock::now();
  };
  CUlibrary library = nullptr;
  check(cuLibraryLoadData(&library, image, nullptr, nullptr, 0, nullptr, nullptr, 0), "cuLibraryLoadData");
  step("cuLibraryLoadData");
  CUkernel kernel = nullptr;
  check(cuLibraryGetKernel(&kernel, library, lowered_name), "cuLibraryGetKernel");
  step("cuLibraryGetKernel");
  check(cuLaunchKernel(reinterpret_cast<CUfunction>(kernel), launch.grid(), 1, 1, launch.block(), 1, 1, 0, nullptr,
                       launch.args(), nullptr),
        "cuLaunchKernel");
  step("cuLaunchKernel");
  synchronize();
  step("cuCtxSynchronize");
}

}  // namespace

Timing run_by_hand(const Inputs& inputs, const KernelSpec& spec, Launch& launch) {
  const std::string file = read_file(inputs.package);
  format::PackageReader reader;
  const auto bytes = std::as_bytes(std::span(file.data(), file.size()));
  if (const Status opened = reader.open(bytes, inputs.package); !opened) throw BenchError(error_text(opened.error()));
  const std::optional<std::uint32_t> index = reader.find_kernel(spec.name);
  if (!index) throw BenchError(std::string("no kernel '") + spec.name + "' in " + inputs.package);
  const format::KernelView kernel = reader.kernel(*index);
  const format::UnitView unit = reader.unit(kernel.unit);

  // The unit's images as candidates, chosen by the same rules as the runtime.
  std::vector<select::Candidate> candidates;
  for (std::uint32_t i = 0; i < unit.image_count; ++i) {
    const format::ImageView image = reader.image(unit.first_image + i);
    candidates.push_back(select::Candidate{reader.target(image.target).target, image.ptx_version});
  }
  const select::DeviceProfile device{static_cast<std::uint16_t>(inputs.arch), inputs.integrated,
                                     select::max_ptx_version_for_driver(inputs.driver_version)};
  const select::Selection selection = select::select_image(device, candidates);
  if (!selection.choice) throw BenchError(selection.failure.reason);
  Result<std::vector<std::byte>> read = reader.read_image(unit.first_image + static_cast<std::uint32_t>(selection.choice->index));
  if (!read) throw BenchError(error_text(read.error()));
  const std::vector<std::byte>& image = *read;
  const std::string lowered(kernel.lowered_name);
  // --floor-image anonymous: the image where Kiln's path has it, in fresh anonymous pages at its
  // page offset in the file (platform::reserve_memory, as PackageSource maps a file), filled before
  // the heap is settled. --floor-image pread: the same pages, filled by a pread from the package file
  // just before the clock, as Kiln's first request reads its image; --floor-image pread-file-region: the
  // same into a region the size of the whole package file at the image's offset in it, as Kiln's
  // PackageSource lays a file out (its other pages never touched). --floor-image pread-elsewhere:
  // the same pread into pages the driver never reads, and the image loaded from the heap: whether
  // what follows the load is the read itself (a system call, fresh pages) or the pages it filled.
  const std::span<const std::byte> stored =
      reader.stored_image(unit.first_image + static_cast<std::uint32_t>(selection.choice->index));
  const auto stored_offset = static_cast<std::size_t>(stored.data() - bytes.data());
  const bool whole_file = inputs.floor_image == "pread-file-region";
  const bool reads_before = inputs.floor_image == "pread" || whole_file || inputs.floor_image == "pread-elsewhere";
  if (reads_before && stored.size() != image.size())
    throw BenchError("--floor-image " + inputs.floor_image + " reads the image as stored: this one is compressed");
  const void* loaded = image.data();
  void* reserved = nullptr;
  std::size_t reserved_size = 0;
  const std::size_t in_page = whole_file ? stored_offset : stored_offset % 4096;
  if (inputs.floor_image != "heap") {
    reserved_size = whole_file ? bytes.size() : in_page + image.size();
    reserved = platform::reserve_memory(reserved_size);
    if (!reserved) throw BenchError("cannot reserve memory for the image");
  }
  if (inputs.floor_image == "anonymous") {
    std::memcpy(static_cast<std::byte*>(reserved) + in_page, image.data(), image.size());
    loaded = static_cast<std::byte*>(reserved) + in_page;
  }
  const int fd = reads_before ? platform::open_for_reading(inputs.package) : -1;
  if (reads_before && fd < 0) throw BenchError("cannot open " + inputs.package);

  Timing timing;
  timing.image = select::describe(candidates[selection.choice->index], selection.choice->rule) + ", " +
                 std::to_string(image.size()) + " bytes";
  settle_heap();
  if (reads_before) {
    std::byte* target = static_cast<std::byte*>(reserved) + in_page;
    if (platform::read_at(fd, target, image.size(), stored_offset) != static_cast<long>(image.size()))
      throw BenchError("cannot read the image from " + inputs.package);
    if (inputs.floor_image != "pread-elsewhere") loaded = target;
  }
  const auto start = Clock::now();
  load_and_launch(loaded, lowered.c_str(), launch, timing.driver_steps);
  timing.total_ms = since(start);
  if (reserved) platform::release_memory(reserved, reserved_size);
  if (fd >= 0) platform::close_file(fd);
  return timing;
}

Timing run_nvrtc(const Inputs& inputs, const KernelSpec& spec, Launch& launch) {
  const std::string source = read_file(inputs.sources + "/" + spec.source);
  const std::string arch = "-arch=sm_" + std::to_string(inputs.arch);
  const std::string includes[] = {"-I" + inputs.sources, "-I" + inputs.cuda_include + "/cccl",
                                  "-I" + inputs.cuda_include};
  const char* options[] = {arch.c_str(), includes[0].c_str(), includes[1].c_str(), includes[2].c_str()};

  Timing timing;
  settle_heap();
  const auto start = Clock::now();
  nvrtcProgram program = nullptr;
  check(nvrtcCreateProgram(&program, source.c_str(), spec.source, 0, nullptr, nullptr), "nvrtcCreateProgram");
  if (spec.templated) check(nvrtcAddNameExpression(program, spec.name), "nvrtcAddNameExpression");
  if (nvrtcCompileProgram(program, 4, options) != NVRTC_SUCCESS) {
    std::size_t log_size = 0;
    nvrtcGetProgramLogSize(program, &log_size);
    std::string log(log_size, '\0');
    nvrtcGetProgramLog(program, log.data());
    throw BenchError("NVRTC failed to compile " + std::string(spec.source) + ":\n" + log);
  }
  const char* lowered = spec.name;
  if (spec.templated) check(nvrtcGetLoweredName(program, spec.name, &lowered), "nvrtcGetLoweredName");
  const std::string lowered_name(lowered);
  std::size_t cubin_size = 0;
  check(nvrtcGetCUBINSize(program, &cubin_size), "nvrtcGetCUBINSize");
  std::vector<char> cubin(cubin_size);
  check(nvrtcGetCUBIN(program, cubin.data()), "nvrtcGetCUBIN");
  nvrtcDestroyProgram(&program);
  timing.compile_ms = since(start);
  std::vector<std::pair<std::string, double>> steps;  // not reported: (c) is timed whole
  load_and_launch(cubin.data(), lowered_name.c_str(), launch, steps);
  timing.total_ms = since(start);
  timing.image = "NVRTC cubin for sm_" + std::to_string(inputs.arch) + ", " + std::to_string(cubin_size) + " bytes";
  return timing;
}

}  // namespace kiln::bench
