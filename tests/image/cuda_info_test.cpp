// The .nv.info / .nv.compat record readers on hand-made bytes, one rule at a time.
#include "image/cuda_info.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <string_view>

namespace kiln::image {
namespace {

using test::describe;

std::vector<std::byte> bytes(std::initializer_list<unsigned> values) {
  std::vector<std::byte> out;
  for (unsigned v : values) out.push_back(static_cast<std::byte>(v));
  return out;
}

// Parses the records and reads the parameters; "error: ..." if either fails.
std::string params_of(const std::vector<std::byte>& section) {
  Result<std::vector<CudaAttribute>> attributes = parse_attributes(section);
  if (!attributes) return "error: " + attributes.error().message;
  Result<std::vector<format::ParamRecord>> params = kernel_params(*attributes);
  if (!params) return "error: " + params.error().message;
  return describe(*params);
}

// KPARAM_INFO: {u32 index, u16 ordinal, u16 offset, u32 packed}, size = packed >> 18.
std::vector<std::byte> kparam(unsigned ordinal, unsigned offset, unsigned size, unsigned attribute = 0x17) {
  const unsigned packed = attribute == 0x17 ? (size << 18) | 0x1f000 : size;
  return bytes({4, attribute, 12, 0, 0, 0, 0, 0, ordinal & 0xff, ordinal >> 8, offset & 0xff, offset >> 8,
                packed & 0xff, (packed >> 8) & 0xff, (packed >> 16) & 0xff, packed >> 24});
}

std::vector<std::byte> concat(std::initializer_list<std::vector<std::byte>> parts) {
  std::vector<std::byte> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

TEST(ImageCudaInfo, ReadsTheMeasuredShortRecord) {
  // A `short` at ordinal 6, offset 42, byte for byte as ptxas 13.0 writes it, after six others.
  const auto measured = bytes({0x04, 0x17, 0x0c, 0x00, 0, 0, 0, 0, 0x06, 0x00, 0x2a, 0x00, 0x00, 0xf0, 0x09, 0x00});
  const auto section = concat({measured, kparam(5, 40, 2), kparam(4, 32, 8), kparam(3, 24, 8), kparam(2, 16, 8),
                               kparam(1, 8, 8), kparam(0, 0, 8)});
  EXPECT_EQ(params_of(section), " 0/8 8/8 16/8 24/8 32/8 40/2 42/2");
}

TEST(ImageCudaInfo, SortsByOrdinalAndSkipsOtherRecords) {
  const auto section = concat({bytes({0x04, 0x37, 0x04, 0x00, 0x82, 0, 0, 0}),  // CUDA_API_VERSION
                               kparam(2, 16, 8), kparam(1, 8, 8), kparam(0, 0, 4),
                               bytes({0x03, 0x1b, 0xff, 0x00}),                  // HVAL
                               bytes({0x01, 0x35, 0x00, 0x00}),                  // NVAL
                               bytes({0x03, 0x19, 24, 0x00}),                    // CBANK_PARAM_SIZE
                               bytes({0x04, 0x0a, 0x08, 0x00, 0x1a, 0, 0, 0, 0x10, 0x02, 24, 0x00})});  // PARAM_CBANK
  EXPECT_EQ(params_of(section), " 0/4 8/8 16/8");
}

TEST(ImageCudaInfo, ReadsVersion2RecordsOfLargeParameters) {
  EXPECT_EQ(params_of(concat({kparam(1, 5000, 8, 0x45), kparam(0, 0, 5000, 0x45)})), " 0/5000 5000/8");
}

TEST(ImageCudaInfo, NoParametersIsAnEmptyList) { EXPECT_EQ(params_of(bytes({0x03, 0x1b, 0xff, 0x00})), ""); }

TEST(ImageCudaInfo, RejectsInconsistentParameters) {
  EXPECT_EQ(params_of(concat({kparam(0, 0, 4), kparam(2, 8, 4)})),
            "error: parameter ordinals are not 0..1 (found 2 at position 1)");
  EXPECT_EQ(params_of(concat({kparam(0, 0, 8), kparam(1, 4, 4)})), "error: parameter 1 overlaps the one before it");
  EXPECT_EQ(params_of(concat({kparam(0, 0, 4), bytes({0x03, 0x19, 16, 0x00})})),
            "error: parameter block is 16 bytes but the parameters end at 4");
  EXPECT_EQ(params_of(bytes({0x04, 0x17, 0x04, 0x00, 0, 0, 0, 0})), "error: KPARAM_INFO record of unexpected shape");
}

TEST(ImageCudaInfo, RejectsMalformedRecordLists) {
  EXPECT_EQ(params_of(bytes({0x04, 0x17, 0x0c})), "error: truncated attribute record at offset 0");
  EXPECT_EQ(params_of(bytes({0x03, 0x1b, 0xff, 0x00, 0x04, 0x17, 0x0c, 0x00, 0, 0})),
            "error: attribute 0x17 at offset 4 runs past its section");
  EXPECT_EQ(params_of(bytes({0x07, 0x17, 0x00, 0x00})), "error: unknown attribute format 7 at offset 0");
}

TEST(ImageCudaInfo, FindsTheArchInTheToolkitNote) {
  const auto note = [](std::string_view text) {
    std::vector<std::byte> out;
    for (char c : text) out.push_back(static_cast<std::byte>(c));
    return toolkit_arch_from_note(out);
  };
  using namespace std::literals;
  EXPECT_EQ(note("\x02\0\0\0\0ptxas\0Cuda compilation tools\0-arch sm_90a -m 64 \0"sv), "sm_90a");
  EXPECT_EQ(note("ptxas\0-arch sm_100f "sv), "sm_100f");
  EXPECT_EQ(note("ptxas\0-O3 -arch=sm_120"sv), "sm_120");
  EXPECT_EQ(note("ptxas\0-march sm_90\0-arch compute_90\0"sv), "");
  EXPECT_EQ(note(""sv), "");
}

}  // namespace
}  // namespace kiln::image
