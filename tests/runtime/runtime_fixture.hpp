// Shared by the runtime tests: packages built from synthetic images (NUL-terminated text that the
// fake driver recognizes), and a fixture that installs a fresh FakeDriver through the core's test
// hook and clears the KILN_* environment around each test.
#pragma once

#include "fake_driver.hpp"
#include "writer/package_writer.hpp"
#include "kiln/kiln.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::testing {

using Bytes = std::vector<std::byte>;

// The text of the image of `unit` for `target`: what the fake driver records when it is loaded.
std::string image_text(std::string_view unit, std::string_view target);
// The image build_package stores for `text` (image_text) and `target`: a minimal cubin (an ELF
// header for the target's SM, the text, a section header table) or PTX (the text, .version and
// .target lines); `compressible` adds repetitive bytes. The fake driver reads the text back.
Bytes test_image(const std::string& text, std::string_view target, bool compressible);
// The text of a test image at `image` (what the fake driver records for a load).
std::string image_key(const void* image);

struct UnitSpec {
  std::string source;                    // the unit's name
  std::vector<std::string> targets;
  std::vector<std::string> sources = {}; // format::PackageUnit::sources: a link group's, a variant's one
  bool variant = false;
};

struct KernelSpec {
  KernelSpec(std::string name_, std::string unit_, std::vector<std::uint32_t> param_sizes_ = {})
      : name(std::move(name_)), unit(std::move(unit_)), param_sizes(std::move(param_sizes_)) {}
  KernelSpec& with_lowered(std::string l) { lowered = std::move(l); return *this; }
  KernelSpec& with_aliases(std::vector<std::string> a) { aliases = std::move(a); return *this; }
  KernelSpec& without_params() { params_known = false; return *this; }
  KernelSpec& only_in(std::vector<std::string> t) { targets = std::move(t); return *this; }
  // A variant kernel: `lowered` is "<variant>/<symbol>" (format::k_kernel_variant).
  KernelSpec& as_variant() { variant = true; return *this; }
  // In no image of this file: another file of a split package holds it (k_kernel_in_other_file).
  KernelSpec& elsewhere() { in_other_file = true; return *this; }

  std::string name;                      // canonical name; also the lowered name unless `lowered` is set
  std::string unit;
  std::vector<std::uint32_t> param_sizes;
  bool params_known = true;
  std::string lowered;
  std::vector<std::string> aliases;
  std::vector<std::string> targets;      // the images that hold it; empty: every image of its unit
  bool variant = false;
  bool in_other_file = false;
};

struct PackageSpec {
  std::vector<UnitSpec> units;
  std::vector<KernelSpec> kernels;
  std::vector<format::PackageVariable> variables;
  std::uint32_t ptx_version = 90;        // of every PTX image (CUDA 13.0's ISA)
  bool compressible = false;             // pad images (4096 bytes ending in a NUL) so that the writer
                                         // stores them as zstd
  std::vector<std::pair<std::string, std::string>> metadata;   // e.g. {"nvrtc.version", "13.1"}
  std::vector<format::PackageCarriedUnit> carried = {};        // sources carried for run-time compiles
};

Bytes build_package(const PackageSpec& spec);

// One unit "ops.cu" built for `targets`, holding one kernel "k" with no parameters.
Bytes single_kernel_package(const std::vector<std::string>& targets, std::uint32_t ptx_version = 90);

// Changes the first byte of the stored (uncompressed) image of `unit` for `target` in `package`, so
// that the package still opens (BLOBS is checked lazily) and that image fails its checksum.
void damage_image(Bytes& package, std::string_view unit, std::string_view target);

// Runs `call`, expects a kiln::Error with `expected`, and returns its message.
std::string error_of(const std::function<void()>& call, kiln_status expected);

// For tests that compile at run time with the toolkit's real NVRTC and nvJitLink: points CUDA_PATH at
// /usr/local/cuda and returns "", or why they cannot run (then the test skips, saying so).
std::string use_toolkit_compilers();

class RuntimeTest : public ::testing::Test {
protected:
  void SetUp() override;
  void TearDown() override;

  // Opens a copy of `bytes` through the C++ interface.
  static kiln::Package open(const Bytes& bytes, const char* label = "app.kiln");

  // Runs `body(thread, iteration)` `iterations` times on each of `threads` threads, started together;
  // thread t makes fake device t % fake->devices.size() current first. Returns how many calls threw
  // kiln::Error.
  int run_concurrently(int threads, int iterations, const std::function<void(int thread, int iteration)>& body);

  std::shared_ptr<FakeDriver> fake = std::make_shared<FakeDriver>();
};

}  // namespace kiln::testing
