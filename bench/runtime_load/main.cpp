// runtime_load: one first launch, timed, in a fresh process. run.py runs it many times per case.
//
//   runtime_load_bench --case a|b|c|d --kernel NAME --package saxpy.kiln
//                      [--sources examples/saxpy/kernels] [--cuda-include /usr/local/cuda/include]
//                      [--floor-image heap|anonymous|pread|pread-file-region|pread-elsewhere]
//                      [--kiln-open file|memory]
//
// Prints one JSON line. Exit status: 0 done and checked, 1 the kernel's result is wrong, 2 setup
// or a step failed.
#include "cases.hpp"
#include "driver_check.hpp"

#include <cuda.h>

#include <chrono>
#include <cstdio>
#include <algorithm>
#include <iterator>
#include <map>

namespace {

using namespace kiln::bench;

// k_floor_images for a message: each in `quote`, between `separator`s.
std::string floor_images(const std::string& quote, const std::string& separator) {
  std::string out;
  for (const char* value : k_floor_images) out += (out.empty() ? "" : separator) + quote + value + quote;
  return out;
}

std::map<std::string, std::string> parse(int argc, char** argv) {
  std::map<std::string, std::string> options{{"--sources", "examples/saxpy/kernels"},
                                             {"--cuda-include", "/usr/local/cuda/include"}};
  for (int i = 1; i + 1 < argc; i += 2) options[argv[i]] = argv[i + 1];
  for (const char* required : {"--case", "--kernel", "--package"}) {
    if (options.count(required) == 0) {
      throw BenchError(std::string("missing ") + required +
                       "\nusage: runtime_load_bench --case a|b|c|d --kernel NAME --package FILE"
                       " [--sources DIR] [--cuda-include DIR] [--floor-image " + floor_images("", "|") +
                       "] [--kiln-open file|memory]");
    }
  }
  return options;
}

// Prints a JSON string (names and messages here hold no control characters).
std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const auto options = parse(argc, argv);
    const std::string which = options.at("--case");
    const KernelSpec& spec = find_kernel_spec(options.at("--kernel"));
    Inputs inputs{options.at("--package"), options.at("--sources"), options.at("--cuda-include")};
    if (options.count("--floor-image")) inputs.floor_image = options.at("--floor-image");
    if (options.count("--kiln-open")) inputs.kiln_open = options.at("--kiln-open");
    if (std::find(std::begin(k_floor_images), std::end(k_floor_images), inputs.floor_image) == std::end(k_floor_images))
      throw BenchError("--floor-image is one of " + floor_images("'", ", ") + ", not '" + inputs.floor_image + "'");
    if (inputs.kiln_open != "file" && inputs.kiln_open != "memory")
      throw BenchError("--kiln-open is 'file' or 'memory', not '" + inputs.kiln_open + "'");

    // Driver start-up and the context: timed, reported, and kept out of every case.
    auto start = Clock::now();
    check(cuInit(0), "cuInit");
    const double init_ms = since(start);
    CUdevice device = 0;
    CUcontext context = nullptr;
    start = Clock::now();
    check(cuDeviceGet(&device, 0), "cuDeviceGet");
    check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(context), "cuCtxSetCurrent");
    const double context_ms = since(start);
    int major = 0, minor = 0, integrated = 0;
    check(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device), "compute capability");
    check(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device), "compute capability");
    check(cuDeviceGetAttribute(&integrated, CU_DEVICE_ATTRIBUTE_INTEGRATED, device), "integrated");
    check(cuDriverGetVersion(&inputs.driver_version), "cuDriverGetVersion");
    inputs.arch = major * 10 + minor;
    inputs.integrated = integrated != 0;

    Launch launch(spec);
    Timing timing;
    if (which == "a") timing = run_kiln(inputs, spec, launch);
    else if (which == "b") timing = run_by_hand(inputs, spec, launch);
    else if (which == "c") timing = run_nvrtc(inputs, spec, launch);
    else if (which == "d") timing = run_kiln_timed(inputs, spec, launch);
    else throw BenchError("unknown case '" + which + "' (a, b, c or d)");
    const bool ok = launch.check();

    std::string steps = "{";
    for (const auto& [name, ms] : timing.driver_steps) {
      char value[32];
      std::snprintf(value, sizeof value, "%.4f", ms);
      steps += (steps.size() > 1 ? ", " : "") + quoted(name) + ": " + value;
    }
    steps += "}";
    std::printf("{\"case\": %s, \"kernel\": %s, \"arch\": %d, \"total_ms\": %.4f, \"init_ms\": %.4f, "
                "\"context_ms\": %.4f, \"driver_ms\": %.4f, \"driver_calls\": %llu, \"open_driver_calls\": %llu, "
                "\"compile_ms\": %.4f, "
                "\"driver_load_ms\": %.4f, \"driver_steps\": %s, \"image\": %s, \"ok\": %s}\n",
                quoted(which).c_str(), quoted(spec.name).c_str(), inputs.arch, timing.total_ms, init_ms, context_ms,
                timing.driver_ms, static_cast<unsigned long long>(timing.driver_calls),
                static_cast<unsigned long long>(timing.open_driver_calls), timing.compile_ms,
                timing.driver_load_ms, steps.c_str(), quoted(timing.image).c_str(), ok ? "true" : "false");
    return ok ? 0 : 1;
  } catch (const BenchError& error) {
    std::fprintf(stderr, "runtime_load_bench: %s\n", error.what());
    return 2;
  }
}
