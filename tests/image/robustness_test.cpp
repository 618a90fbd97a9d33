// Hostile input: every truncation and thousands of random byte changes of a real cubin and PTX.
// The readers must answer with an Error (naming the label) or a result, never crash or read out of
// bounds; each case gets its own exactly-sized copy so AddressSanitizer sees any overread.
#include "image/cubin_reader.hpp"
#include "image/elf_file.hpp"
#include "ptx/ptx_reader.hpp"

#include "test_module.hpp"

#include <gtest/gtest.h>

#include <random>

namespace kiln::image {
namespace {

using namespace std::literals;

const std::vector<std::byte>& real_cubin() { return test::test_module("sm_90a").cubin; }

std::string error_of(const std::vector<std::byte>& bytes) {
  Result<CubinInfo> info = read_cubin(bytes, "c.cubin");
  return info ? "" : info.error().message;
}

void put_u16(std::vector<std::byte>& bytes, std::size_t at, unsigned value) {
  bytes[at] = static_cast<std::byte>(value & 0xff);
  bytes[at + 1] = static_cast<std::byte>(value >> 8);
}

void put_u64(std::vector<std::byte>& bytes, std::size_t at, std::uint64_t value) {
  for (std::size_t i = 0; i < 8; ++i) bytes[at + i] = static_cast<std::byte>((value >> (8 * i)) & 0xff);
}

std::size_t get_u64(const std::vector<std::byte>& bytes, std::size_t at) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < 8; ++i) value |= std::to_integer<std::uint64_t>(bytes[at + i]) << (8 * i);
  return static_cast<std::size_t>(value);
}

TEST(ImageRobustness, EveryTruncatedCubinIsAnError) {
  const std::vector<std::byte>& cubin = real_cubin();
  ASSERT_EQ(error_of(cubin), "");
  for (std::size_t size = 0; size < cubin.size(); ++size) {
    const std::vector<std::byte> prefix(cubin.begin(), cubin.begin() + static_cast<std::ptrdiff_t>(size));
    const std::string error = error_of(prefix);
    EXPECT_TRUE(error.starts_with("c.cubin: ")) << "size " << size << ": '" << error << "'";
  }
}

// Where the reader looks: the ELF header, the section table, and every section but code.
std::vector<std::pair<std::size_t, std::size_t>> metadata_ranges(const std::vector<std::byte>& cubin) {
  std::vector<std::pair<std::size_t, std::size_t>> ranges = {{0, 64}};
  const std::size_t table = get_u64(cubin, 40);
  ranges.emplace_back(table, cubin.size() - table);
  Result<ElfFile> elf = ElfFile::parse(cubin);
  for (const ElfSection& s : elf->sections())
    if (!s.bytes.empty() && !s.name.starts_with(".text"))
      ranges.emplace_back(static_cast<std::size_t>(s.bytes.data() - cubin.data()), s.bytes.size());
  return ranges;
}

TEST(ImageRobustness, RandomlyChangedCubinsNeverCrash) {
  const std::vector<std::byte>& cubin = real_cubin();
  const auto ranges = metadata_ranges(cubin);
  ASSERT_GT(ranges.size(), 10u);
  std::mt19937 random(20240611);
  int errors = 0, results = 0;
  for (int round = 0; round < 20000; ++round) {
    std::vector<std::byte> copy = cubin;
    const auto& [begin, length] = ranges[random() % ranges.size()];
    const int changes = 1 + static_cast<int>(random() % 4);
    for (int i = 0; i < changes; ++i) copy[begin + random() % length] ^= static_cast<std::byte>(1 + random() % 255);
    Result<CubinInfo> info = read_cubin(copy, "c.cubin");
    if (!info) {
      ++errors;
      EXPECT_TRUE(info.error().message.starts_with("c.cubin: ")) << info.error().message;
      continue;
    }
    ++results;
    std::uint64_t total = 0;  // touch everything the result holds
    for (const CubinSymbol& s : info->symbols) total += s.size + s.name.size() + s.section.size();
    for (const CubinKernelParams& k : info->kernel_params)
      for (const format::ParamRecord& p : k.params) total += p.offset + p.size;
    EXPECT_GE(total, 0u);
  }
  // Both outcomes must be common, or the changes are not reaching the interesting code.
  EXPECT_GT(errors, 1000);
  EXPECT_GT(results, 1000);
}

TEST(ImageRobustness, RejectsImpossibleHeaders) {
  const std::vector<std::byte>& cubin = real_cubin();
  std::vector<std::byte> c = cubin;
  put_u16(c, 18, 62);  // e_machine x86-64
  EXPECT_EQ(error_of(c), "c.cubin: not a CUDA ELF (e_machine 62)");
  c = cubin;
  c[7] = std::byte{0};  // EI_OSABI System V
  EXPECT_EQ(error_of(c), "c.cubin: not a CUDA ELF (EI_OSABI 0x0)");
  c = cubin;
  put_u64(c, 40, ~std::uint64_t{0});  // e_shoff
  EXPECT_EQ(error_of(c), "c.cubin: section header table lies outside the file");
  c = cubin;
  put_u16(c, 60, 0xfffe);  // e_shnum
  EXPECT_EQ(error_of(c), "c.cubin: section header table lies outside the file");
  c = cubin;
  c[4] = std::byte{1};  // ELFCLASS32
  EXPECT_EQ(error_of(c), "c.cubin: not a 64-bit ELF file (EI_CLASS 1)");
  c = cubin;
  put_u16(c, 48, 0);  // e_flags without an SM
  c[50] = c[51] = std::byte{0};
  EXPECT_EQ(error_of(c), "c.cubin: e_flags 0x0 name no SM");
}

TEST(ImageRobustness, TruncatedOrChangedPtxNeverCrashes) {
  const std::string& ptx = test::test_module("sm_90a").ptx;
  std::mt19937 random(7);
  const auto check = [](const std::string& text) {
    Result<PtxInfo> info = read_ptx(text, "k.ptx");
    if (!info) {
      EXPECT_TRUE(info.error().message.starts_with("k.ptx:")) << info.error().message;
    }
  };
  for (std::size_t size = 0; size < ptx.size(); ++size) check(ptx.substr(0, size));
  for (int round = 0; round < 3000; ++round) {
    std::string copy = ptx;
    const int changes = 1 + static_cast<int>(random() % 4);
    for (int i = 0; i < changes; ++i) {
      const std::size_t at = random() % copy.size();
      static constexpr std::string_view k_tricky = "{}()[];,.=\0\"/*\xff 0x"sv;
      copy[at] = round % 2 ? k_tricky[random() % k_tricky.size()] : static_cast<char>(random() % 256);
    }
    check(copy);
  }
}

}  // namespace
}  // namespace kiln::image
