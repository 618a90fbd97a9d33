#include "runtime_fixture.hpp"

#include "core/driver_access.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <set>
#include <thread>

namespace kiln::testing {

namespace {

Bytes text_image(const std::string& text, bool compressible) {
  Bytes out(text.size() + 1);
  std::memcpy(out.data(), text.data(), text.size());
  // After the NUL, which the fake driver stops at: repetitive bytes make zstd worth it. They end in a
  // NUL too, as PTX images must (the runtime refuses PTX that does not).
  if (compressible) {
    out.resize(out.size() + 4096, std::byte{'x'});
    out.back() = std::byte{0};
  }
  return out;
}

}  // namespace

std::string image_text(std::string_view unit, std::string_view target) {
  return "img:" + std::string(unit) + ":" + std::string(target);
}

Bytes build_package(const PackageSpec& spec) {
  format::PackageContents contents;
  std::set<std::string> targets;
  for (const UnitSpec& u : spec.units) {
    format::PackageUnit unit;
    unit.source = u.source;
    for (const std::string& t : u.targets) {
      targets.insert(t);
      const bool ptx = t.rfind("compute_", 0) == 0;
      unit.images.push_back({t, text_image(image_text(u.source, t), spec.compressible), ptx ? spec.ptx_version : 0});
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
  format::WriteResult written = format::write_package(contents);
  EXPECT_EQ(written.error, "");
  return std::move(written.bytes);
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

void RuntimeTest::SetUp() {
  ::unsetenv("KILN_FORCE_TARGET");
  ::unsetenv("KILN_LOG");
  core::set_driver_for_testing(fake);
}

void RuntimeTest::TearDown() {
  core::set_driver_for_testing(nullptr);
  ::unsetenv("KILN_FORCE_TARGET");
  ::unsetenv("KILN_LOG");
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
