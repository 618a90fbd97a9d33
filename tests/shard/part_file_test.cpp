#include "shard/part_file.hpp"

#include <gtest/gtest.h>

namespace kiln::shard {
namespace {

Part sample() {
  Part part;
  part.kiln_version = "0.4.0";
  part.toolchain = "nvrtc 13.0, nvjitlink 13.0";
  part.fingerprint = "00112233445566778899aabbccddeeff";
  part.index = 2;
  part.count = 3;
  part.jobs = 7;
  part.entries["0123456789abcdef0123456789abcdef"] = {std::byte{1}, std::byte{2}};
  part.entries["fedcba9876543210fedcba9876543210"] = {};
  part.cut_by = "the estimate";
  part.cut = {{{"a.cu", "sm_80"}, 1}, {{"a.cu", "sm_90"}, 3}, {{"b.cu", "sm_80"}, 2}};
  return part;
}

TEST(PartFile, RoundTrips) {
  const Part part = sample();
  Result<Part> back = decode_part(encode_part(part));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->kiln_version, part.kiln_version);
  EXPECT_EQ(back->toolchain, part.toolchain);
  EXPECT_EQ(back->fingerprint, part.fingerprint);
  EXPECT_EQ(back->index, 2u);
  EXPECT_EQ(back->count, 3u);
  EXPECT_EQ(back->jobs, 7u);
  EXPECT_EQ(back->entries, part.entries);
  EXPECT_EQ(back->cut_by, part.cut_by);
  EXPECT_EQ(back->cut, part.cut);
  EXPECT_EQ(encode_part(*back), encode_part(part)) << "deterministic";
}

TEST(PartFile, EveryTruncationAndEveryFlippedByteIsRefused) {
  const std::vector<std::byte> bytes = encode_part(sample());
  for (std::size_t size = 0; size < bytes.size(); ++size) {
    const std::vector<std::byte> cut(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(size));
    EXPECT_FALSE(decode_part(cut).ok()) << "cut at " << size;
  }
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    std::vector<std::byte> flipped = bytes;
    flipped[i] ^= std::byte{0x10};
    EXPECT_FALSE(decode_part(flipped).ok()) << "byte " << i;
  }
}

TEST(PartFile, SaysWhatIsWrong) {
  const auto error = [](const std::vector<std::byte>& bytes) {
    Result<Part> r = decode_part(bytes);
    return r.ok() ? std::string("decoded") : r.error().message;
  };
  EXPECT_EQ(error({}), "not a part of a sharded build (kiln build --shard I/N writes them)");
  std::vector<std::byte> bytes = encode_part(sample());
  bytes.pop_back();
  EXPECT_EQ(error(bytes), "damaged: its checksum does not match (truncated or changed)");
  Part bad = sample();
  bad.index = 4;   // of 3
  EXPECT_EQ(error(encode_part(bad)), "damaged: shard 4 of 3");
  bad = sample();
  bad.cut[{"c.cu", "sm_80"}] = 4;   // of 3
  EXPECT_EQ(error(encode_part(bad)), "damaged: its cut names shard 4");
  std::vector<std::byte> newer = encode_part(sample());
  newer[8 + 9] = std::byte{9};   // the version after the magic's length and text
  EXPECT_NE(error(newer).find("a part of version 9; this kiln reads version 2"), std::string::npos) << error(newer);
}

TEST(PartFile, ReadingNamesTheFile) {
  Result<Part> missing = read_part("/no/such/dir/p.kilnpart");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("/no/such/dir/p.kilnpart"), std::string::npos) << missing.error().message;
}

}  // namespace
}  // namespace kiln::shard
