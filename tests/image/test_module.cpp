#include "test_module.hpp"

#include <nvJitLink.h>
#include <nvrtc.h>

#include <memory>
#include <stdexcept>

namespace kiln::image::test {
namespace {

// One kernel of every parameter shape the readers must lay out, two template instantiations (weak
// symbols), a kernel over 4 KiB of parameters (ptxas then writes KPARAM_INFO_V2), and variables that
// no kernel uses, so they survive only because -variables-used keeps them.
constexpr std::string_view k_source = R"(
struct Big36 { float f[9]; };
struct alignas(16) Aligned16 { float x, y, z, w; };
struct Empty {};
struct Huge { char bytes[5000]; };

extern "C" __global__ void mixed(float a, float* p, double d, char c, short s, Big36 big, int i, const int* q) {
  if (p) p[0] = a + (float)d + c + s + big.f[8] + i + q[0];
}
template <typename T> __global__ void fill(T* out, T value, int n) { if (threadIdx.x < n) out[threadIdx.x] = value; }
extern "C" __global__ void no_params() {}
extern "C" __global__ void aligned(char c, Aligned16 a, Empty e, long long* out) { out[0] = c + (long long)a.w; }
extern "C" __global__ void huge(const __grid_constant__ Huge h, int* out, char c) { out[0] = h.bytes[4999] + c; }

__device__ float my_table[64];
__constant__ int my_consts[16];
__managed__ double my_managed[3];
__device__ int dropped_table[32];
)";

// Host twins of the device structs: the host compiler's C ABI layout is the expected one.
struct Big36 { float f[9]; };
struct alignas(16) Aligned16 { float x, y, z, w; };
struct Empty {};
struct Huge { char bytes[5000]; };

template <typename... Ts>
std::vector<format::ParamRecord> c_abi_layout() {
  std::vector<format::ParamRecord> out;
  std::uint32_t end = 0;
  const auto place = [&](std::uint32_t align, std::uint32_t size) {
    const std::uint32_t offset = (end + align - 1) / align * align;
    out.push_back({offset, size});
    end = offset + size;
  };
  (place(alignof(Ts), sizeof(Ts)), ...);
  return out;
}

void check(nvrtcResult r, const char* what) {
  if (r != NVRTC_SUCCESS) throw std::runtime_error(std::string(what) + ": " + nvrtcGetErrorString(r));
}

std::string nvrtc_log(nvrtcProgram program) {
  std::size_t size = 0;
  nvrtcGetProgramLogSize(program, &size);
  std::string log(size, '\0');
  nvrtcGetProgramLog(program, log.data());
  return log;
}

// Links LTO-IR with nvJitLink; `ptx` asks for PTX instead of a cubin.
std::vector<char> link(const std::string& ir, const std::string& arch, const std::vector<std::string>& keep, bool ptx) {
  std::vector<std::string> options = {"-arch=" + arch, "-lto", "-optimize-unused-variables"};
  for (const std::string& v : keep) options.push_back("-variables-used=" + v);
  if (ptx) options.push_back("-ptx");
  std::vector<const char*> argv;
  for (const std::string& o : options) argv.push_back(o.c_str());
  nvJitLinkHandle handle = nullptr;
  if (nvJitLinkCreate(&handle, static_cast<std::uint32_t>(argv.size()), argv.data()) != NVJITLINK_SUCCESS)
    throw std::runtime_error("nvJitLinkCreate failed for " + arch);
  const std::unique_ptr<nvJitLinkHandle, void (*)(nvJitLinkHandle*)> guard(&handle, [](nvJitLinkHandle* h) { nvJitLinkDestroy(h); });
  std::size_t size = 0;
  if (nvJitLinkAddData(handle, NVJITLINK_INPUT_LTOIR, ir.data(), ir.size(), "test") != NVJITLINK_SUCCESS ||
      nvJitLinkComplete(handle) != NVJITLINK_SUCCESS) {
    nvJitLinkGetErrorLogSize(handle, &size);
    std::string log(size, '\0');
    nvJitLinkGetErrorLog(handle, log.data());
    throw std::runtime_error("nvJitLink failed for " + arch + ": " + log);
  }
  std::vector<char> out;
  if (ptx ? nvJitLinkGetLinkedPtxSize(handle, &size) : nvJitLinkGetLinkedCubinSize(handle, &size))
    throw std::runtime_error("nvJitLink has no output for " + arch);
  out.resize(size);
  if (ptx ? nvJitLinkGetLinkedPtx(handle, out.data()) : nvJitLinkGetLinkedCubin(handle, out.data()))
    throw std::runtime_error("nvJitLink has no output for " + arch);
  return out;
}

}  // namespace

BuiltModule build_module(std::string_view source, const std::string& arch,
                         const std::vector<std::string>& name_expressions, const std::vector<std::string>& keep) {
  nvrtcProgram program = nullptr;
  check(nvrtcCreateProgram(&program, std::string(source).c_str(), "test.cu", 0, nullptr, nullptr), "nvrtcCreateProgram");
  const std::unique_ptr<nvrtcProgram, void (*)(nvrtcProgram*)> guard(&program, [](nvrtcProgram* p) { nvrtcDestroyProgram(p); });
  for (const std::string& e : name_expressions) check(nvrtcAddNameExpression(program, e.c_str()), "nvrtcAddNameExpression");
  const std::string arch_option = "-arch=" + arch;
  const char* options[] = {arch_option.c_str(), "-dlto", "-frandom-seed=0"};
  if (nvrtcCompileProgram(program, 3, options) != NVRTC_SUCCESS)
    throw std::runtime_error("NVRTC failed for " + arch + ":\n" + nvrtc_log(program));

  BuiltModule module;
  for (const std::string& e : name_expressions) {
    const char* lowered = nullptr;
    check(nvrtcGetLoweredName(program, e.c_str(), &lowered), "nvrtcGetLoweredName");
    module.lowered[e] = lowered;
  }
  std::size_t size = 0;
  check(nvrtcGetLTOIRSize(program, &size), "nvrtcGetLTOIRSize");
  std::string ir(size, '\0');
  check(nvrtcGetLTOIR(program, ir.data()), "nvrtcGetLTOIR");

  std::vector<std::string> kept;
  for (const std::string& e : keep) kept.push_back(lowered_name(module, e));
  const std::vector<char> cubin = link(ir, arch, kept, false);
  const std::vector<char> ptx = link(ir, arch, kept, true);
  module.cubin.resize(cubin.size());
  for (std::size_t i = 0; i < cubin.size(); ++i) module.cubin[i] = static_cast<std::byte>(cubin[i]);
  module.ptx.assign(ptx.begin(), ptx.end());
  return module;
}

const BuiltModule& test_module(const std::string& arch) {
  static std::map<std::string, BuiltModule> cache;
  auto it = cache.find(arch);
  if (it == cache.end()) {
    // NVRTC 13.0 refuses name expressions for __managed__ variables ("expression must have a
    // constant value"), so my_managed is kept by its symbol, which is its plain name.
    const std::vector<std::string> expressions = {"fill<float>", "fill<double>", "&my_table", "&my_consts"};
    it = cache.emplace(arch, build_module(k_source, arch, expressions, {"&my_table", "&my_consts", "my_managed"})).first;
  }
  return it->second;
}

std::vector<ExpectedKernel> expected_kernels() {
  return {
      {"mixed", false, c_abi_layout<float, float*, double, char, short, Big36, int, const int*>()},
      {"fill<float>", true, c_abi_layout<float*, float, int>()},
      {"fill<double>", true, c_abi_layout<double*, double, int>()},
      {"no_params", false, {}},
      {"aligned", false, c_abi_layout<char, Aligned16, Empty, long long*>()},
      {"huge", false, c_abi_layout<Huge, int*, char>()},
  };
}

std::vector<ExpectedVariable> expected_variables() {
  return {{"&my_table", 64 * sizeof(float), format::VariableKind::device},
          {"&my_consts", 16 * sizeof(int), format::VariableKind::constant},
          {"my_managed", 3 * sizeof(double), format::VariableKind::managed}};
}

std::string lowered_name(const BuiltModule& module, const std::string& expression) {
  const auto it = module.lowered.find(expression);
  return it != module.lowered.end() ? it->second : expression;  // extern "C" kernels keep their name
}

std::string describe(const std::vector<format::ParamRecord>& params) {
  std::string out;
  for (const format::ParamRecord& p : params) out += " " + std::to_string(p.offset) + "/" + std::to_string(p.size);
  return out;
}

}  // namespace kiln::image::test
