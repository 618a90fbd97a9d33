// tests/fixtures/scan as one package (scan_fixtures.kiln): every kernel the scanner found in its
// fixtures (CUB, namespaces, functors, variadic and defaulted templates, headers, include-free
// sources, requests) loads on this device, runs, and computes what its source says. checks() holds
// one entry per kernel; EveryKernelIsChecked fails when the package gains a kernel checks() lacks.
#include "gpu_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <numeric>
#include <ostream>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

namespace kiln::gpu_test {
namespace {

constexpr unsigned k_threads = 32;   // one warp: elementwise kernels get one element per thread

kiln::Package open_fixtures() { return open_package("scan_fixtures.kiln"); }

// Host images of the functor parameters: ops::Scale<float> holds one float; the stateless
// functors (ops::Square, Negate, Outer::Inner, cuda::std::plus) are empty classes of one byte.
struct ScaleFloat {
  float factor;
};
struct Stateless {};
static_assert(sizeof(ScaleFloat) == 4 && sizeof(Stateless) == 1);

// n small integers from -8 up (from 0 for unsigned types) times `step`: exact in float and double,
// with negatives and a zero among them.
template <class T>
std::vector<T> values(std::size_t n, T step = T(1)) {
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const int k = std::is_unsigned_v<T> ? static_cast<int>(i) : static_cast<int>(i) - 8;
    v[i] = static_cast<T>(static_cast<T>(k) * step);
  }
  return v;
}

// Launches `name` as <<<1, threads>>> with `data` uploaded as its first argument (then `args`) and
// returns the buffer as the kernel left it.
template <class T, class... Args>
std::vector<T> launched(const kiln::Package& package, const std::string& name, unsigned threads,
                        const std::vector<T>& data, Args... args) {
  DeviceBuffer<T> buffer(data);
  package.kernel(name).launch(1, threads, 0, nullptr, buffer.get(), args...);
  synchronize();
  return buffer.download();
}

// The kernels that map each thread's element: data[t] = f(data[t]) over one warp.
template <class T, class F, class... Args>
void expect_mapped(const kiln::Package& package, const std::string& name, const std::vector<T>& input, F f,
                   Args... args) {
  std::vector<T> expected = input;
  std::transform(expected.begin(), expected.end(), expected.begin(), f);
  EXPECT_EQ(launched(package, name, k_threads, input, args...), expected);
}

// The kernels that write one result to out[0]; it starts as a value no kernel here writes, so a
// kernel that writes nothing fails.
template <class T, class... Args>
void expect_written(const kiln::Package& package, const std::string& name, T expected, Args... args) {
  EXPECT_EQ(launched(package, name, 1, std::vector<T>{T(77)}, args...), std::vector<T>{expected});
}

// Writes `contents` to the package's device variable `name` (sizes must agree), in the image the
// package's kernels from that unit use.
template <class T>
void set_global(const kiln::Package& package, const std::string& name, const std::vector<T>& contents) {
  const kiln::Global global = package.global(name);
  if (global.size != contents.size() * sizeof(T)) {
    throw std::runtime_error(name + " is " + std::to_string(global.size) + " bytes, not " +
                             std::to_string(contents.size() * sizeof(T)));
  }
  check_cuda(cudaMemcpy(device_address(global.device_pointer), contents.data(), global.size, cudaMemcpyDefault),
             "cudaMemcpy to " + name);
}

// strided_copy<T, Stride>: out[t] = in[t * Stride].
template <class T, unsigned Stride>
void check_strided_copy(const kiln::Package& package, const std::string& name) {
  const std::vector<T> in = values<T>(k_threads * Stride);
  DeviceBuffer<T> device_in(in);
  std::vector<T> expected(k_threads);
  for (unsigned t = 0; t < k_threads; ++t) expected[t] = in[t * Stride];
  DeviceBuffer<T> out(k_threads);
  package.kernel(name).launch(1, k_threads, 0, nullptr, static_cast<const T*>(device_in.get()), out.get());
  synchronize();
  EXPECT_EQ(out.download(), expected);
}

// blas::axpy<T>(a, x, y, n): y[i] = a * x[i] + y[i] for i < n; a warp with n = 20 leaves the tail.
template <class T>
void check_axpy(const kiln::Package& package, const std::string& name) {
  constexpr int n = 20;
  const T a = T(-1.5);
  const std::vector<T> x = values<T>(k_threads), y = values<T>(k_threads, T(2));
  std::vector<T> expected = y;
  for (int i = 0; i < n; ++i) expected[i] = a * x[i] + y[i];
  DeviceBuffer<T> device_x(x), device_y(y);
  package.kernel(name).launch(1, k_threads, 0, nullptr, a, static_cast<const T*>(device_x.get()), device_y.get(), n);
  synchronize();
  EXPECT_EQ(device_y.download(), expected);
}

// reduce::block_sum<T, Block>(in, out, n), the CUB copy (cub_launch.cu: kiln inspect names that
// unit for all five; reduce_kernels.cu's shared-memory tree computes the same): out[0] = the sum of
// in[0, n). Launched with exactly Block threads, as cub::BlockReduce<T, Block> requires; n < Block,
// and the elements past n are not zero, so the bound is checked too.
template <class T, int Block>
void check_block_sum(const kiln::Package& package, const std::string& name) {
  constexpr int n = Block - 3;
  std::vector<T> in = values<T>(Block);
  std::fill(in.begin() + n, in.end(), T(100));
  const T expected = std::accumulate(in.begin(), in.begin() + n, T(0));
  DeviceBuffer<T> device_in(in), out(1);
  package.kernel(name).launch(1, Block, 0, nullptr, static_cast<const T*>(device_in.get()), out.get(), n);
  synchronize();
  EXPECT_EQ(out.download(), std::vector<T>{expected});
}

// Whether KILN_FORCE_TARGET (see kiln.h) lets the runtime load `target`.
bool target_allowed(const std::string& target) {
  const char* env = std::getenv("KILN_FORCE_TARGET");
  const std::string forced = env ? env : "";
  if (forced.empty()) return true;
  if (forced == "ptx") return target.rfind("compute_", 0) == 0;
  if (forced == "sass") return target.rfind("sm_", 0) == 0;
  return target == forced;
}

// The arch (major * 10 + minor) arch_branches.cu's image here was compiled for, by the runtime's
// rules (runtime/src/select/select_image.hpp): this device's cubin, else the highest lower minor
// of its major (not on an integrated GPU), else PTX, whose __CUDA_ARCH__ is the PTX target's.
int arch_branches_image_arch(const kiln::Package& package) {
  const int arch = device_arch();
  int integrated = 0;
  check_cuda(cudaDeviceGetAttribute(&integrated, cudaDevAttrIntegrated, 0), "cudaDevAttrIntegrated");
  int cubin = 0, ptx = 0;
  for (const std::string& target : package.targets()) {
    if (!target_allowed(target)) continue;
    if (target.rfind("sm_", 0) == 0) {
      const int a = std::atoi(target.c_str() + 3);
      if (a == arch || (!integrated && a / 10 == arch / 10 && a < arch)) cubin = std::max(cubin, a);
    } else if (target.rfind("compute_", 0) == 0) {
      const int a = std::atoi(target.c_str() + 8);
      if (a <= arch) ptx = std::max(ptx, a);
    }
  }
  return cubin ? cubin : ptx;
}

// tuned (arch_branches.cu): data[t] *= 2 from sm_100 on, and then data[0] = 1 (NV_PROVIDES_SM_100;
// thread 0's own last store is 1, as are the others'); *= 3 on sm_90; nothing before.
void check_tuned(const kiln::Package& package, const std::string& name) {
  const int image_arch = arch_branches_image_arch(package);
  ASSERT_NE(image_arch, 0) << "no image of arch_branches.cu runs here";
  const float factor = image_arch >= 100 ? 2.0f : image_arch >= 90 ? 3.0f : 1.0f;
  const std::vector<float> in = values<float>(k_threads);
  std::vector<float> expected(in.size());
  std::transform(in.begin(), in.end(), expected.begin(), [=](float x) { return x * factor; });
  if (image_arch >= 100) expected[0] = 1.0f;
  EXPECT_EQ(launched(package, name, k_threads, in), expected) << "image for sm_" << image_arch;
}

// block_count<128>(counter, flags): each thread adds 1 if flags[t % 128]. 256 threads over flags
// set at multiples of 3 (43 of 0..127) count each flag twice: 86.
void check_block_count(const kiln::Package& package, const std::string& name) {
  std::vector<int> flags(128);
  for (int i = 0; i < 128; ++i) flags[i] = i % 3 == 0 ? 1 : 0;
  DeviceBuffer<int> device_flags(flags);
  EXPECT_EQ(launched(package, name, 256, std::vector<int>{0}, static_cast<const int*>(device_flags.get())),
            std::vector<int>{86});
}

// rotate<int, 3u>: data[t] = data[(t + 3) % 32]. Three threads, so no thread reads an element
// another writes (a full warp would race): data[0, 3) = data[3, 6), the rest unchanged.
void check_rotate(const kiln::Package& package, const std::string& name) {
  const std::vector<int> in = values<int>(k_threads);
  std::vector<int> expected = in;
  for (unsigned t = 0; t < 3; ++t) expected[t] = in[t + 3];
  EXPECT_EQ(launched(package, name, 3, in), expected);
}

// combine<plus<float>, float>(data, other, op): data[t] += other[t].
void check_combine(const kiln::Package& package, const std::string& name) {
  const std::vector<float> data = values<float>(k_threads), other = values<float>(k_threads, 0.25f);
  std::vector<float> expected(k_threads);
  for (unsigned t = 0; t < k_threads; ++t) expected[t] = data[t] + other[t];
  DeviceBuffer<float> device_other(other);
  EXPECT_EQ(launched(package, name, k_threads, data, static_cast<const float*>(device_other.get()), Stateless{}),
            expected);
}

// math::scale(data, factor): data[t] = 2 * data[t] * factor * coeffs[t % 16], coeffs being the
// __constant__ math::coeffs, written here first.
void check_math_scale(const kiln::Package& package, const std::string& name) {
  const std::vector<float> coeffs = values<float>(16, 0.5f);
  set_global(package, "math::coeffs", coeffs);
  const float factor = 1.5f;
  const std::vector<float> in = values<float>(k_threads);
  std::vector<float> expected(k_threads);
  for (unsigned t = 0; t < k_threads; ++t) expected[t] = 2.0f * in[t] * factor * coeffs[t % 16];
  EXPECT_EQ(launched(package, name, k_threads, in, factor), expected);
}

// saxpy(a, x, y, n) (nvrtc_style.cu): y[i] = a * x[i] + y[i] * weights[i % 8] for i < n, weights
// being the __constant__ weights, written here first; n = 20 of a warp leaves the tail.
void check_saxpy(const kiln::Package& package, const std::string& name) {
  constexpr int n = 20;
  const float a = -1.5f;
  const std::vector<float> weights = values<float>(8, 0.5f);
  set_global(package, "weights", weights);
  const std::vector<float> x = values<float>(k_threads), y = values<float>(k_threads, 2.0f);
  std::vector<float> expected = y;
  for (int i = 0; i < n; ++i) expected[i] = a * x[i] + y[i] * weights[i % 8];
  DeviceBuffer<float> device_x(x), device_y(y);
  package.kernel(name).launch(1, k_threads, 0, nullptr, a, static_cast<const float*>(device_x.get()),
                              device_y.get(), n);
  synchronize();
  EXPECT_EQ(device_y.download(), expected);
}

using Check = void (*)(const kiln::Package&, const std::string&);

struct KernelCheck {
  std::string name;   // canonical, exactly as `kiln inspect` and Package::kernel_names() give it
  Check check;
};

// Test listings and failures show the kernel's name, not the entry's bytes.
void PrintTo(const KernelCheck& entry, std::ostream* out) { *out << entry.name; }

// One check per kernel of scan_fixtures.kiln, by fixture; each comment gives the kernel's effect.
const std::vector<KernelCheck>& checks() {
  using P = const kiln::Package&;
  using N = const std::string&;
  static const std::vector<KernelCheck> table = {
      // variadic.cu: out[0] = sizeof...(args); the fold 1 + 2 + 3; out[0] = first.
      {"count_args<>", [](P p, N n) { expect_written(p, n, 0); }},
      {"count_args<int, float, double>", [](P p, N n) { expect_written(p, n, 3, 1, 2.0f, 3.0); }},
      {"sum_constants<1, 2, 3>", [](P p, N n) { expect_written(p, n, 6); }},
      {"first_of<float, char>", [](P p, N n) { expect_written(p, n, 2.5f, 2.5f, 'x'); }},
      {"first_of<unsigned long>",
       [](P p, N n) { expect_written(p, n, 0xF00DCAFE12345678ul, 0xF00DCAFE12345678ul); }},
      // defaults.cu: transform: Op<T>()(x) + (exact ? Block : 0), the int specialization writes 0;
      // tagged: int(Big) + int(Tag), int(2^64 - 1) being -1; flags<true, 'a'>: 'a'.
      {"transform<double, 64, Halve, (Mode)1>",
       [](P p, N n) { expect_mapped(p, n, values<double>(k_threads), [](double x) { return x / 2 + 64.0; }); }},
      {"transform<float, 128, Identity, (Mode)0>",
       [](P p, N n) { expect_mapped(p, n, values<float>(k_threads), [](float x) { return x; }); }},
      {"transform<int, 128, Identity, (Mode)0>",
       [](P p, N n) { expect_mapped(p, n, values<int>(k_threads), [](int) { return 0; }); }},
      {"tagged<18446744073709551615ull, 7u>", [](P p, N n) { expect_written(p, n, 6); }},
      {"tagged<1ull, (short)5>", [](P p, N n) { expect_written(p, n, 6); }},
      {"tagged<2ull, 5l>", [](P p, N n) { expect_written(p, n, 7); }},
      {"tagged<3ull, (Mode)1>", [](P p, N n) { expect_written(p, n, 4); }},
      {"tagged<4ull, (Mode)7>", [](P p, N n) { expect_written(p, n, 11); }},
      {"flags<true, (char)97>", [](P p, N n) { expect_written(p, n, 97); }},
      // functor.cu: data[t] = op(data[t]); combine adds another array.
      {"apply<ops::Scale<float> >",
       [](P p, N n) {
         expect_mapped(p, n, values<float>(k_threads), [](float x) { return x * -1.5f; }, ScaleFloat{-1.5f});
       }},
      {"apply<ops::Square>",
       [](P p, N n) { expect_mapped(p, n, values<float>(k_threads), [](float x) { return x * x; }, Stateless{}); }},
      {"apply<(anonymous namespace)::Negate>",
       [](P p, N n) { expect_mapped(p, n, values<float>(k_threads), [](float x) { return -x; }, Stateless{}); }},
      {"apply<Outer::Inner>",
       [](P p, N n) { expect_mapped(p, n, values<float>(k_threads), [](float x) { return x + 1.0f; }, Stateless{}); }},
      {"combine<cuda::std::__4::plus<float>, float>", check_combine},
      // header_template.cu (include/axpy.cuh).
      {"blas::axpy<float>", check_axpy<float>},
      {"blas::axpy<double>", check_axpy<double>},
      // namespaces.cu: hidden reads hidden_counter and c_entry the __managed__ managed_total, both
      // written here first; fill and the static local_kernel store; hidden_shift<3> is x << 3.
      {"math::scale", check_math_scale},
      {"math::fill<int>",
       [](P p, N n) { expect_mapped(p, n, values<int>(k_threads), [](int) { return -42; }, -42); }},
      {"(anonymous namespace)::hidden",
       [](P p, N n) {
         set_global(p, "hidden_counter", std::vector<int>{1234});
         expect_mapped(p, n, values<int>(k_threads), [](int) { return 1234; });
       }},
      {"(anonymous namespace)::hidden_shift<3>",
       [](P p, N n) { expect_mapped(p, n, values<int>(k_threads), [](int x) { return x * 8; }); }},
      {"local_kernel",
       [](P p, N n) { expect_mapped(p, n, values<float>(k_threads), [](float) { return 0.0f; }); }},
      {"c_entry",
       [](P p, N n) {
         set_global(p, "managed_total", std::vector<int>{41});
         expect_mapped(p, n, values<float>(k_threads), [](float) { return 42.0f; });
       }},
      // nvrtc_style.cu and nvrtc_sync.cu.
      {"saxpy", check_saxpy},
      {"strided_copy<float, 2>", check_strided_copy<float, 2>},
      {"strided_copy<short, 4>", check_strided_copy<short, 4>},
      {"block_count<128>", check_block_count},
      // reduce_kernels.cu: data[t] *= factor; plain stores 0.
      {"reduce::scale<float>",
       [](P p, N n) { expect_mapped(p, n, values<float>(k_threads), [](float x) { return x * 0.25f; }, 0.25f); }},
      {"reduce::scale<double>",
       [](P p, N n) { expect_mapped(p, n, values<double>(k_threads), [](double x) { return x * -3.0; }, -3.0); }},
      {"plain", [](P p, N n) { expect_mapped(p, n, values<float>(k_threads), [](float) { return 0.0f; }); }},
      // cub_launch.cu.
      {"reduce::block_sum<float, 256>", check_block_sum<float, 256>},
      {"reduce::block_sum<double, 128>", check_block_sum<double, 128>},
      {"reduce::block_sum<int, 128>", check_block_sum<int, 128>},
      {"reduce::block_sum<int, 64>", check_block_sum<int, 64>},
      {"reduce::block_sum<unsigned int, 32>", check_block_sum<unsigned, 32>},
      // requests_self.cu: data[t] *= 2 (long: values past 32 bits); rotate.
      {"twice<float>", [](P p, N n) { expect_mapped(p, n, values<float>(k_threads), [](float x) { return x * 2; }); }},
      {"twice<long>",
       [](P p, N n) { expect_mapped(p, n, values<long>(k_threads, 1L << 40), [](long x) { return x * 2; }); }},
      {"(anonymous namespace)::rotate<int, 3u>", check_rotate},
      // arch_branches.cu.
      {"tuned", check_tuned},
  };
  return table;
}

// One test per kernel, named after it ("17_apply_ops__Square_").
class FixtureKernel : public ::testing::TestWithParam<KernelCheck> {};

TEST_P(FixtureKernel, ComputesWhatItsSourceSays) {
  const kiln::Package package = open_fixtures();
  EXPECT_EQ(package.kernel(GetParam().name).name(), GetParam().name) << "not the canonical name";
  GetParam().check(package, GetParam().name);
}

std::string test_name(const ::testing::TestParamInfo<KernelCheck>& info) {
  std::string name = std::to_string(info.index) + "_" + info.param.name;
  std::replace_if(name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); }, '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(ScannedFixtures, FixtureKernel, ::testing::ValuesIn(checks()), test_name);

// The table and the package name the same kernels: a kernel a fixture gains (or a new
// instantiation) fails here until checks() has an entry for it, and an entry for a kernel the
// package lost fails here too.
TEST(ScannedFixtures, EveryKernelIsChecked) {
  std::set<std::string> covered;
  for (const KernelCheck& entry : checks()) EXPECT_TRUE(covered.insert(entry.name).second) << "twice: " << entry.name;
  const kiln::Package package = open_fixtures();
  std::set<std::string> in_package;
  for (const std::string& name : package.kernel_names()) {
    in_package.insert(name);
    EXPECT_TRUE(covered.count(name)) << name << " is in scan_fixtures.kiln but checks() does not launch it";
  }
  for (const std::string& name : covered) {
    EXPECT_TRUE(in_package.count(name)) << name << " is in checks() but not in scan_fixtures.kiln";
  }
}

// Every image loads up front too (preload), not only the ones the checks above happen to touch.
TEST(ScannedFixtures, EveryKernelLoadsOnThisDevice) {
  kiln::Package package = open_fixtures();
  const std::vector<std::string> names = package.kernel_names();
  ASSERT_GE(names.size(), 40u);
  package.preload();
  for (const std::string& name : names) {
    SCOPED_TRACE(name);
    kiln::Kernel kernel = package.kernel(name);
    void* handle = nullptr;
    ASSERT_EQ(kiln_kernel_handle(kernel.get(), &handle), KILN_STATUS_SUCCESS) << kiln_last_error();
    EXPECT_NE(handle, nullptr);
  }
}

}  // namespace
}  // namespace kiln::gpu_test
