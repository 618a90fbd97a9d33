#include "runtime_fixture.hpp"
#include "test_process.hpp"

#include "package_fixture.hpp"

#include "core/driver_access.hpp"
#include "format/target.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>
#include <thread>

namespace kiln::testing {

Bytes test_image(const std::string& text, std::string_view target, bool compressible) {
  // Repetitive bytes after the text make zstd worth it; the fake driver reads the text only.
  const std::string padding = compressible ? "\n//" + std::string(4096, 'x') + "\n" : "";
  if (target.starts_with("compute_")) {
    return format::testing::ptx_of(text + "\n.version 8.0\n.target " + std::string(target) + "\n" + padding);
  }
  const auto parsed = format::parse_target(target);
  return format::testing::cubin_of(text + '\0' + padding, parsed ? parsed->arch : 0);
}

std::string image_key(const void* image) {
  const char* text = static_cast<const char*>(image);
  if (std::memcmp(text, "\x7f" "ELF", 4) == 0) text += 64;   // a test cubin: the text follows the ELF header
  return std::string(text, std::strcspn(text, "\n"));
}


std::string image_text(std::string_view unit, std::string_view target) {
  return "img:" + std::string(unit) + ":" + std::string(target);
}

Bytes build_package(const PackageSpec& spec) {
  format::PackageContents contents;
  std::set<std::string> targets;
  for (const UnitSpec& u : spec.units) {
    format::PackageUnit unit;
    unit.source = u.source;
    unit.sources = u.sources;
    unit.variant = u.variant;
    for (const std::string& t : u.targets) {
      targets.insert(t);
      const bool ptx = t.rfind("compute_", 0) == 0;
      unit.images.push_back({t, test_image(image_text(u.source, t), t, spec.compressible), ptx ? spec.ptx_version : 0});
    }
    contents.units.push_back(std::move(unit));
  }
  contents.targets.assign(targets.begin(), targets.end());
  for (const KernelSpec& k : spec.kernels) {
    format::PackageKernel kernel;
    kernel.lowered_name = k.lowered.empty() ? k.name : k.lowered;
    kernel.canonical_name = k.name;
    kernel.unit_source = k.unit;
    kernel.names = k.aliases;
    kernel.targets = k.targets;
    if (k.variant) kernel.flags |= format::k_kernel_variant;
    if (k.in_other_file) kernel.flags |= format::k_kernel_in_other_file;
    if (k.params_known) {
      kernel.flags |= format::k_kernel_params_known;
      std::uint32_t offset = 0;
      for (std::uint32_t size : k.param_sizes) {
        offset = (offset + size - 1) / size * size;  // naturally aligned, as the compiler lays them out
        kernel.params.push_back({offset, size});
        offset += size;
      }
    }
    contents.kernels.push_back(std::move(kernel));
  }
  contents.variables = spec.variables;
  contents.metadata = spec.metadata;
  contents.carried = spec.carried;
  format::WriteOptions options;
  options.compress = spec.compressible;  // test cubins are mostly zeros: zstd would take even small ones
  Result<Bytes> written = format::write_package(contents, options);
  EXPECT_TRUE(written.ok()) << written.error().message;
  return written ? std::move(written).value() : Bytes();
}

Bytes single_kernel_package(const std::vector<std::string>& targets, std::uint32_t ptx_version) {
  PackageSpec spec;
  spec.units = {{"ops.cu", targets}};
  spec.kernels = {KernelSpec("k", "ops.cu")};
  spec.ptx_version = ptx_version;
  return build_package(spec);
}

std::string error_of(const std::function<void()>& call, kiln_status expected) {
  try {
    call();
  } catch (const kiln::Error& e) {
    EXPECT_EQ(e.status(), expected) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no error; expected " << kiln_status_string(expected);
  return "";
}

void damage_image(Bytes& package, std::string_view unit, std::string_view target) {
  const std::string text = image_text(unit, target);
  auto at = std::search(package.begin(), package.end(), reinterpret_cast<const std::byte*>(text.data()),
                        reinterpret_cast<const std::byte*>(text.data() + text.size()));
  ASSERT_NE(at, package.end()) << "no stored image " << text;
  *at = std::byte{'J'};
}

namespace {

// Kernels compiled at run time go to a cache of this test process's own, never the user's: the
// process's cache reads KILN_CACHE_DIR on its first use, which comes after a SetUp.
struct TestCacheDirectory {
  TestCacheDirectory() {
    path = std::filesystem::temp_directory_path() / ("kiln-runtime-tests-" + std::to_string(kiln::test::process_id()));
    kiln::test::set_variable("KILN_CACHE_DIR", path.string());
  }
  ~TestCacheDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  std::filesystem::path path;
};

#if defined(KILN_TEST_JIT_LIBRARY)
// The compile library the build made, which the loader finds once per process, on the first compile.
const bool g_compile_library_named = [] {
  kiln::test::set_variable("KILN_JIT_LIBRARY", KILN_TEST_JIT_LIBRARY);
  return true;
}();
#endif

}  // namespace

std::string use_toolkit_compilers() {
#if defined(_WIN32)
  return "needs NVRTC and nvJitLink built for Windows (nvrtc64_130_0.dll), which the Linux machine that "
         "runs these tests under Wine does not have";
#endif
  if (!std::filesystem::exists("/usr/local/cuda/lib64/libnvrtc.so.13"))
    return "no NVRTC in /usr/local/cuda: the real-compiler tests need the toolkit";
  kiln::test::set_variable("CUDA_PATH", "/usr/local/cuda");
  return {};
}

void RuntimeTest::SetUp() {
  static TestCacheDirectory cache_directory;
  kiln::test::unset_variable("KILN_FORCE_TARGET");
  kiln::test::unset_variable("KILN_LOG");
  core::set_driver_for_testing(fake);
}

void RuntimeTest::TearDown() {
  core::set_driver_for_testing(nullptr);
  kiln::test::unset_variable("KILN_FORCE_TARGET");
  kiln::test::unset_variable("KILN_LOG");
}

kiln::Package RuntimeTest::open(const Bytes& bytes, const char* label) {
  return kiln::Package::open_memory(bytes.data(), bytes.size(), KILN_OPEN_COPY, label);
}

int RuntimeTest::run_concurrently(int threads, int iterations,
                                  const std::function<void(int thread, int iteration)>& body) {
  const int devices = static_cast<int>(fake->devices.size());
  std::atomic<bool> go{false};
  std::atomic<int> failures{0};
  std::vector<std::thread> running;
  for (int t = 0; t < threads; ++t) {
    running.emplace_back([&, t] {
      fake->make_current(devices > 0 ? t % devices : -1);
      while (!go.load()) std::this_thread::yield();
      for (int i = 0; i < iterations; ++i) {
        try {
          body(t, i);
        } catch (const kiln::Error&) {
          ++failures;
        }
      }
    });
  }
  go = true;
  for (std::thread& t : running) t.join();
  return failures.load();
}

}  // namespace kiln::testing
