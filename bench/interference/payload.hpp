// The payload the receiver checks: byte j of sample `epoch` is
// payload_byte(epoch, j) (writer_protocol.hpp), whoever wrote it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hetprobe {

// Writes the payload of `epoch` on the host (when no device writer fills the
// send buffer). `buf` must be 8-byte aligned.
void fill_payload(std::byte* buf, std::uint64_t bytes, std::uint64_t epoch);
// Bytes of `buf` that differ from the payload of `epoch`. `buf` 8-byte aligned.
std::uint64_t count_payload_mismatches(const std::byte* buf, std::uint64_t bytes, std::uint64_t epoch);

}  // namespace hetprobe
