// package_open: what opening a large package file and taking one image out of it costs, through
// libkiln.so as programs use it (README.md). Writes a package of --size MiB (one unit, cubins for
// sm_80 and sm_90 of equal size, each a minimal well-formed ELF around incompressible bytes), then,
// --runs times: kiln_package_open_file, kiln_package_select_image_for_arch (checksum and image
// check of one image), kiln_package_destroy. Prints the medians. Run it against two builds of
// libkiln.so by LD_LIBRARY_PATH to compare them on the same file.
#include "writer/package_writer.hpp"

#include <kiln/kiln.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

// A 64-bit EM_CUDA ELF header for sm_`sm`, `body` random bytes, then a one-entry section table.
std::vector<std::byte> cubin(std::size_t body, unsigned sm, unsigned seed) {
  const std::size_t table = 64 + (body + 7) / 8 * 8;
  std::vector<std::byte> out(table + 64);
  std::mt19937_64 random(seed);
  for (std::size_t i = 64; i < 64 + body; i += 8) {
    const std::uint64_t r = random();
    std::memcpy(out.data() + i, &r, std::min<std::size_t>(8, 64 + body - i));
  }
  const auto put = [&](std::size_t at, auto value) { std::memcpy(out.data() + at, &value, sizeof value); };
  std::memcpy(out.data(), "\x7f" "ELF\x02\x01\x01", 7);
  out[8] = std::byte{8};  // ABI version 8: the SM sits in e_flags bits 8-15
  put(16, std::uint16_t{2});
  put(18, std::uint16_t{190});
  put(40, std::uint64_t{table});
  put(48, std::uint32_t{sm << 8});
  put(52, std::uint16_t{64});
  put(58, std::uint16_t{64});
  put(60, std::uint16_t{1});
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t mib = 100;
  int runs = 21;
  std::string path = "package_open.kiln";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--size") == 0) mib = std::strtoul(argv[i + 1], nullptr, 10);
    if (std::strcmp(argv[i], "--runs") == 0) runs = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--package") == 0) path = argv[i + 1];
  }
  kiln::format::PackageContents contents;
  contents.targets = {"sm_80", "sm_90"};
  const std::size_t each = mib * 1024 * 1024 / 2;
  contents.units = {{"big.cu", {{"sm_80", cubin(each, 80, 1), 0}, {"sm_90", cubin(each, 90, 2), 0}}}};
  contents.kernels = {{"k", "k", "big.cu", kiln::format::k_kernel_extern_c, {}, {}}};
  kiln::format::WriteOptions raw;
  raw.compress = false;
  const kiln::Result<std::vector<std::byte>> written = kiln::format::write_package(contents, raw);
  if (!written) {
    std::fprintf(stderr, "package_open: %s\n", written.error().message.c_str());
    return 1;
  }
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(written->data()), static_cast<std::streamsize>(written->size()));

  std::vector<double> open_ms, image_ms, destroy_ms;
  std::size_t image_size = 0;
  for (int run = 0; run < runs; ++run) {
    kiln_package* package = nullptr;
    auto start = Clock::now();
    if (kiln_package_open_file(path.c_str(), &package) != KILN_STATUS_SUCCESS) {
      std::fprintf(stderr, "package_open: %s\n", kiln_last_error());
      return 1;
    }
    open_ms.push_back(ms_since(start));
    kiln_image image{};
    image.struct_size = sizeof image;
    start = Clock::now();
    if (kiln_package_select_image_for_arch(package, "k", 90, 0, &image) != KILN_STATUS_SUCCESS) {
      std::fprintf(stderr, "package_open: %s\n", kiln_package_last_error(package));
      return 1;
    }
    image_ms.push_back(ms_since(start));
    image_size = image.size;
    start = Clock::now();
    kiln_package_destroy(package);
    destroy_ms.push_back(ms_since(start));
  }
  std::printf("%s: %zu bytes, %d runs (medians): open %.3f ms, first image (%zu bytes) %.3f ms, destroy %.3f ms\n",
              path.c_str(), written->size(), runs, median(open_ms), image_size, median(image_ms),
              median(destroy_ms));
  return 0;
}
