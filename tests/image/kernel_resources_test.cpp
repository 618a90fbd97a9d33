// read_kernel_resources: the thread-limit records one rule at a time on hand-made bytes, the whole
// reader on a real cubin, and hostile changes of it, which must give an error naming the label or a
// result, never a crash or a read outside the buffer.
#include "image/kernel_resources.hpp"
#include "image/elf_file.hpp"

#include "test_module.hpp"

#include <gtest/gtest.h>

#include <random>

namespace kiln::image {
namespace {

std::vector<std::byte> record_bytes(std::initializer_list<unsigned> values) {
  std::vector<std::byte> out;
  for (unsigned v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

// The limits the records give, "max 32x4x1 exactly -", or "error: ...".
std::string limits_of(const std::vector<std::byte>& section) {
  Result<std::vector<CudaAttribute>> attributes = parse_attributes(section);
  if (!attributes) return "error: " + attributes.error().message;
  KernelResources k;
  if (Status s = read_thread_limits(*attributes, k); !s) return "error: " + s.error().message;
  const auto shape = [](const std::optional<ThreadShape>& s) {
    return s ? std::to_string((*s)[0]) + "x" + std::to_string((*s)[1]) + "x" + std::to_string((*s)[2]) : std::string("-");
  };
  return "max " + shape(k.max_threads) + " exactly " + shape(k.required_threads);
}

TEST(ImageKernelResources, ReadsMaxAndRequiredThreads) {
  // As ptxas 13.0 writes .maxntid 32, 4, 1 and .reqntid 64, 2, 1 (measured).
  EXPECT_EQ(limits_of(record_bytes({4, 0x05, 12, 0, 32, 0, 0, 0, 4, 0, 0, 0, 1, 0, 0, 0})), "max 32x4x1 exactly -");
  EXPECT_EQ(limits_of(record_bytes({4, 0x10, 12, 0, 64, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0})), "max - exactly 64x2x1");
  EXPECT_EQ(limits_of(record_bytes({3, 0x1b, 0xff, 0})), "max - exactly -");   // MAXREG_COUNT: not a limit on threads
  // The same record twice is no contradiction.
  EXPECT_EQ(limits_of(record_bytes({4, 0x05, 12, 0, 32, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 4, 0x05, 12, 0, 32, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0})),
            "max 32x1x1 exactly -");
}

TEST(ImageKernelResources, RefusesMalformedThreadLimits) {
  EXPECT_EQ(limits_of(record_bytes({4, 0x05, 8, 0, 32, 0, 0, 0, 1, 0, 0, 0})), "error: MAX_THREADS record of unexpected shape");
  EXPECT_EQ(limits_of(record_bytes({3, 0x10, 64, 0})), "error: REQNTID record of unexpected shape");
  EXPECT_EQ(limits_of(record_bytes({4, 0x05, 12, 0, 32, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 4, 0x05, 12, 0, 64, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0})),
            "error: two MAX_THREADS records that disagree");
  EXPECT_EQ(limits_of(record_bytes({4, 0x05, 12, 0, 32, 0})).substr(0, 20), "error: attribute 0x0");   // runs past the section
}

const std::vector<std::byte>& resources_cubin() { return test::test_module("sm_90").cubin; }

TEST(ImageKernelResources, ReadsEveryKernelOfARealCubin) {
  Result<std::vector<KernelResources>> read = read_kernel_resources(resources_cubin(), "test.cu [sm_90]");
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_GE(read->size(), test::expected_kernels().size());
  for (const KernelResources& k : *read) {
    EXPECT_TRUE(k.registers && *k.registers > 0) << k.kernel;
    EXPECT_TRUE(k.stack_size.has_value()) << k.kernel;
    EXPECT_GT(k.constant_size, 0u) << k.kernel;
  }
}

TEST(ImageKernelResources, RefusesARecordForASymbolThatDoesNotExist) {
  std::vector<std::byte> cubin = resources_cubin();
  const Result<ElfFile> elf = ElfFile::parse(cubin);
  ASSERT_TRUE(elf);
  const ElfSection* info = elf->find_section(".nv.info");
  ASSERT_NE(info, nullptr);
  const std::size_t at = static_cast<std::size_t>(info->bytes.data() - cubin.data());
  ASSERT_EQ(cubin[at + 1], std::byte{0x2f});
  cubin[at + 4] = std::byte{0xff};
  cubin[at + 5] = std::byte{0xff};
  Result<std::vector<KernelResources>> read = read_kernel_resources(cubin, "c.cubin");
  ASSERT_FALSE(read);
  EXPECT_TRUE(read.error().message.starts_with("c.cubin: .nv.info: REGCOUNT record names symbol ")) << read.error().message;
  cubin[at + 2] = std::byte{4};   // the payload is now 4 bytes, and the next record starts inside it
  read = read_kernel_resources(cubin, "c.cubin");
  ASSERT_FALSE(read);
  EXPECT_TRUE(read.error().message.starts_with("c.cubin: .nv.info: ")) << read.error().message;
}

TEST(ImageKernelResources, HostileCubinsNeverCrash) {
  const std::vector<std::byte>& cubin = resources_cubin();
  for (std::size_t size = 0; size < cubin.size(); size += 7) {
    const std::vector<std::byte> prefix(cubin.begin(), cubin.begin() + static_cast<std::ptrdiff_t>(size));
    Result<std::vector<KernelResources>> read = read_kernel_resources(prefix, "c.cubin");
    EXPECT_FALSE(read) << size;
    if (!read) {
      EXPECT_TRUE(read.error().message.starts_with("c.cubin: ")) << read.error().message;
    }
  }
  const Result<ElfFile> elf = ElfFile::parse(cubin);
  ASSERT_TRUE(elf);
  std::vector<std::pair<std::size_t, std::size_t>> ranges;
  for (const ElfSection& s : elf->sections())
    if (s.name.starts_with(".nv.info") || s.name == ".symtab")
      ranges.emplace_back(static_cast<std::size_t>(s.bytes.data() - cubin.data()), s.bytes.size());
  ASSERT_GT(ranges.size(), 2u);
  std::mt19937 random(20261129);
  for (int round = 0; round < 5000; ++round) {
    std::vector<std::byte> copy = cubin;
    const auto& [begin, length] = ranges[random() % ranges.size()];
    for (int i = 0; i < 1 + static_cast<int>(random() % 4); ++i)
      copy[begin + random() % length] ^= static_cast<std::byte>(1 + random() % 255);
    Result<std::vector<KernelResources>> read = read_kernel_resources(copy, "c.cubin");
    if (!read) {
      EXPECT_TRUE(read.error().message.starts_with("c.cubin: ")) << read.error().message;
    }
  }
}

}  // namespace
}  // namespace kiln::image
