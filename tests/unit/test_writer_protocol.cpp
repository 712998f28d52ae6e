// The writer logic shared by every backend, exercised on the host.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "bench/interference/payload.hpp"
#include "probes/writer/writer_protocol.hpp"

namespace hetprobe {
namespace {

TEST(WriterProtocol, PayloadWordsCarryEpochAndIndexAndNeverLookLikePostWords) {
  EXPECT_NE(payload_word(1, 0), payload_word(2, 0));
  EXPECT_NE(payload_word(1, 0), payload_word(1, 1));
  for (std::uint64_t pass : {0ull, 1ull, 12345ull})
    for (std::uint64_t i : {0ull, 7ull, 1ull << 30}) {
      EXPECT_EQ(post_word(pass, i) >> 63, 1u);
      EXPECT_EQ(payload_word(pass, i) >> 63, 0u);
    }
}

TEST(WriterProtocol, WriteRegionCoversUnalignedHeadAndTailExactly) {
  std::vector<unsigned char> mem(200, 0xEE);
  unsigned char* base = mem.data() + 3;  // misaligned start (vector storage is 8-aligned or more)
  ASSERT_NE(reinterpret_cast<std::uintptr_t>(base) % 8, 0u);
  for (std::uint64_t rank = 0; rank < 3; ++rank) write_region(base, 101, PostValue{7}, rank, 3);
  for (std::size_t j = 0; j < 3; ++j) EXPECT_EQ(mem[j], 0xEE);
  for (std::size_t j = 104; j < mem.size(); ++j) EXPECT_EQ(mem[j], 0xEE) << j;
  std::size_t written = 0;
  for (std::size_t j = 3; j < 104; ++j) written += mem[j] != 0xEE;
  EXPECT_GT(written, 90u);  // a post word has arbitrary bytes, a few may equal 0xEE
}

TEST(Payload, FillThenCheckIsIntactAndEveryDamagedByteCounts) {
  alignas(8) std::byte buf[1003];
  fill_payload(buf, sizeof buf, 42);
  EXPECT_EQ(count_payload_mismatches(buf, sizeof buf, 42), 0u);
  // Against another epoch, every byte that differs from that epoch's pattern counts.
  std::uint64_t differ = 0;
  for (std::size_t j = 0; j < sizeof buf; ++j) differ += static_cast<unsigned char>(buf[j]) != payload_byte(43, j);
  EXPECT_GT(differ, 0u);
  EXPECT_EQ(count_payload_mismatches(buf, sizeof buf, 43), differ);
  buf[5] ^= std::byte{1};
  buf[1001] ^= std::byte{0x80};  // in the tail
  EXPECT_EQ(count_payload_mismatches(buf, sizeof buf, 42), 2u);
}

TEST(Payload, BytesMatchTheWordPattern) {
  alignas(8) std::byte buf[16];
  fill_payload(buf, sizeof buf, 9);
  std::uint64_t w;
  std::memcpy(&w, buf + 8, 8);
  EXPECT_EQ(w, payload_word(9, 1));
  EXPECT_EQ(static_cast<unsigned char>(buf[9]), payload_byte(9, 9));
}

}  // namespace
}  // namespace hetprobe
