// Whether an open asks the dynamic loader if libcuda is loaded (a walk of its list of objects, 10-50
// us in a Python process: core/package.cpp): it does until the process is bound to the driver, and
// never after. Through libkiln.so, with the fake libcuda of tests/driver named by KILN_LIBCUDA; the
// walks are counted by this program's own dl_iterate_phdr, which libkiln's calls bind to (an
// executable's definitions come first in the dynamic loader's lookup). Each test is a process of its
// own under CTest (the binding is process-wide); run alone, the binary runs them in this order.
#include "kiln/kiln.h"
#include "test_process.hpp"
#include "writer/package_writer.hpp"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

std::atomic<int> g_walks{0};

using IteratePhdr = int (*)(int (*)(dl_phdr_info*, std::size_t, void*), void*);

}  // namespace

// Default visibility: the tests are compiled with hidden symbols, and a hidden one is not exported.
extern "C" __attribute__((visibility("default"))) int dl_iterate_phdr(int (*callback)(dl_phdr_info*, std::size_t, void*), void* data) {
  g_walks.fetch_add(1);
  static const auto real = reinterpret_cast<IteratePhdr>(dlsym(RTLD_NEXT, "dl_iterate_phdr"));
  return real(callback, data);
}

namespace kiln {
namespace {

namespace fs = std::filesystem;

// A package that needs no image to open: one unit, carried as source.
fs::path write_package(const std::string& name) {
  format::PackageContents contents;
  contents.targets = {"sm_80"};
  contents.units = {format::PackageUnit{"kernels/probe.cu", {}}};
  format::PackageCarriedUnit carried;
  carried.unit_source = "kernels/probe.cu";
  carried.source = {"kernels/probe.cu", "extern \"C\" __global__ void probe(int* x) { x[0] = 1; }\n"};
  carried.kernel_templates = {"probe"};
  carried.nvrtc_version = "13.0";
  contents.carried = {carried};
  const Result<std::vector<std::byte>> written = format::write_package(contents);
  if (!written.ok()) {
    ADD_FAILURE() << "the test package: " << written.error().message;
    return {};
  }
  const fs::path path = fs::temp_directory_path() / (name + "-" + std::to_string(test::process_id()) + ".kiln");
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(written->data()), static_cast<std::streamsize>(written->size()));
  return path;
}

// The walks one open makes.
int walks_of_open(const fs::path& path) {
  kiln_package* package = nullptr;
  g_walks = 0;
  const kiln_status status = kiln_package_open_file(path.c_str(), &package);
  const int walks = g_walks.load();
  EXPECT_EQ(status, KILN_STATUS_SUCCESS) << path << ": " << kiln_last_error();
  kiln_package_destroy(package);
  return walks;
}

TEST(OpenBinding, WithoutLibcudaLoadedEveryOpenAsks) {
  test::set_variable("KILN_LIBCUDA", KILN_TEST_FAKE_LIBCUDA);   // the file named, not loaded
  const fs::path path = write_package("open-binding-unbound");
  ASSERT_FALSE(path.empty());
  EXPECT_GE(walks_of_open(path), 1);
  EXPECT_GE(walks_of_open(path), 1) << "nothing bound the driver, so the second open must ask again";
  fs::remove(path);
}

TEST(OpenBinding, OnceTheProcessIsBoundAnOpenDoesNotAsk) {
  test::set_variable("KILN_LIBCUDA", KILN_TEST_FAKE_LIBCUDA);
  // A program that uses CUDA: libcuda loaded before any package is opened.
  void* cuda = dlopen(KILN_TEST_FAKE_LIBCUDA, RTLD_NOW | RTLD_GLOBAL);
  ASSERT_NE(cuda, nullptr) << dlerror();
  const fs::path path = write_package("open-binding-bound");
  ASSERT_FALSE(path.empty());
  EXPECT_GE(walks_of_open(path), 1) << "the first open asks, finds libcuda and binds to it";
  // Had the first open failed to bind, this one would ask again.
  EXPECT_EQ(walks_of_open(path), 0) << "the process is bound: the open must not walk the loader's list";
  fs::remove(path);
}

}  // namespace
}  // namespace kiln
