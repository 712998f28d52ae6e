#include "bench/interference/payload.hpp"

#include <cstring>

#include "probes/writer/writer_protocol.hpp"

namespace hetprobe {

void fill_payload(std::byte* buf, std::uint64_t bytes, std::uint64_t epoch) {
  write_region(reinterpret_cast<unsigned char*>(buf), bytes, PayloadValue{epoch}, 0, 1);
}

std::uint64_t count_payload_mismatches(const std::byte* buf, std::uint64_t bytes, std::uint64_t epoch) {
  std::uint64_t bad = 0;
  const std::uint64_t words = bytes / 8;
  for (std::uint64_t k = 0; k < words; ++k) {
    std::uint64_t w;
    std::memcpy(&w, buf + 8 * k, 8);
    const std::uint64_t diff = w ^ payload_word(epoch, k);
    if (diff == 0) continue;  // the common case: a whole word intact
    for (int b = 0; b < 8; ++b) bad += ((diff >> (8 * b)) & 0xFF) != 0;
  }
  for (std::uint64_t j = words * 8; j < bytes; ++j) bad += static_cast<unsigned char>(buf[j]) != payload_byte(epoch, j);
  return bad;
}

}  // namespace hetprobe
