#include "package_spec.hpp"

#include "writer/package_writer.hpp"

#include <cstring>
#include <fstream>
#include <random>

namespace kiln::bench {

namespace {

// A 64-bit EM_CUDA ELF for sm_`sm` of `size` bytes: header, random bytes, a one-entry section table.
std::vector<std::byte> cubin(std::size_t size, unsigned sm, unsigned seed) {
  const std::size_t table = (size - 64) / 8 * 8;
  std::vector<std::byte> out(table + 64);
  std::mt19937_64 random(seed);
  for (std::size_t i = 64; i + 8 <= table; i += 8) {
    const std::uint64_t r = random();
    std::memcpy(out.data() + i, &r, 8);
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

std::vector<std::byte> ptx(std::size_t size) {
  std::string text = ".version 9.0\n.target sm_75\n.address_size 64\n";
  while (text.size() + 1 < size) text += "// padding\n";
  std::vector<std::byte> out(text.size() + 1);
  std::memcpy(out.data(), text.c_str(), text.size() + 1);
  return out;
}

struct TargetSize {
  const char* target;
  unsigned sm;                  // 0: PTX
  std::size_t saxpy, block_sum; // bytes, as examples/saxpy's package holds them
};

constexpr TargetSize k_targets[] = {
    {"sm_75", 75, 6056, 12595},   {"sm_80", 80, 6440, 13107},   {"sm_86", 86, 6440, 13107},
    {"sm_87", 87, 7592, 14131},   {"sm_88", 88, 6440, 13107},   {"sm_89", 89, 6440, 13107},
    {"sm_90", 90, 7624, 14745},   {"sm_100", 100, 11673, 21094}, {"sm_103", 103, 11673, 22425},
    {"sm_110", 110, 11980, 22528}, {"sm_120", 120, 11673, 22323}, {"sm_121", 121, 11673, 22323},
    {"compute_75", 0, 2599, 14233},
};

format::PackageKernel kernel(std::string canonical, std::string lowered, std::uint32_t flags,
                             std::vector<std::uint32_t> sizes, const char* unit) {
  format::PackageKernel k;
  k.canonical_name = std::move(canonical);
  k.lowered_name = std::move(lowered);
  k.unit_source = unit;
  k.flags = flags | format::k_kernel_params_known;
  std::uint32_t offset = 0;
  for (std::uint32_t size : sizes) {
    offset = (offset + size - 1) / size * size;
    k.params.push_back(format::ParamRecord{offset, size});
    offset += size;
  }
  k.names = {k.canonical_name, k.lowered_name};
  return k;
}

}  // namespace

Status write_saxpy_like_package(const std::string& path) {
  format::PackageContents contents;
  format::PackageUnit saxpy{"kernels/saxpy.cu", {}};
  format::PackageUnit block_sum{"kernels/block_sum.cu", {}};
  unsigned seed = 1;
  for (const TargetSize& t : k_targets) {
    contents.targets.push_back(t.target);
    const std::uint32_t ptx_version = t.sm ? 0 : 90;
    saxpy.images.push_back({t.target, t.sm ? cubin(t.saxpy, t.sm, seed++) : ptx(t.saxpy), ptx_version});
    block_sum.images.push_back({t.target, t.sm ? cubin(t.block_sum, t.sm, seed++) : ptx(t.block_sum), ptx_version});
  }
  contents.units = {block_sum, saxpy};
  contents.kernels = {
      kernel("saxpy", "saxpy", format::k_kernel_extern_c, {4, 4, 8, 8}, "kernels/saxpy.cu"),
      kernel("scale<float>", "_Z5scaleIfEvPT_S0_i", 0, {8, 4, 4}, "kernels/saxpy.cu"),
      kernel("scale<double>", "_Z5scaleIdEvPT_S0_i", 0, {8, 8, 4}, "kernels/saxpy.cu"),
      kernel("block_sum<float, 128>", "_Z9block_sumIfLi128EEvPKT_PS0_i", 0, {8, 8, 4}, "kernels/block_sum.cu"),
      kernel("block_sum<float, 256>", "_Z9block_sumIfLi256EEvPKT_PS0_i", 0, {8, 8, 4}, "kernels/block_sum.cu"),
      kernel("block_sum<double, 128>", "_Z9block_sumIdLi128EEvPKT_PS0_i", 0, {8, 8, 4}, "kernels/block_sum.cu"),
      kernel("block_sum<double, 256>", "_Z9block_sumIdLi256EEvPKT_PS0_i", 0, {8, 8, 4}, "kernels/block_sum.cu"),
  };
  contents.metadata = {{"nvrtc.version", "13.0"}};
  format::WriteOptions raw;
  raw.compress = false;  // kiln build's default
  const Result<std::vector<std::byte>> written = format::write_package(contents, raw);
  if (!written) return written.error();
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(written->data()), static_cast<std::streamsize>(written->size()));
  if (!out) return fail(KILN_STATUS_IO_ERROR, "cannot write " + path);
  return {};
}

}  // namespace kiln::bench
