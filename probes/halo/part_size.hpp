// How many bytes of a halo message one team (a GPU block, a host thread)
// packs or unpacks: the engine's choice, one team per message, or a size.
// One type from the command line (--parts) through the engine and the device
// protocol to the records; its parser, JSON form and text form are in
// bench/halo/halo_parts.hpp.
#pragma once

#include <cstdint>

#include "probes/device/portability.hpp"

namespace hetprobe {

class PartSize {
 public:
  enum class Kind : std::uint32_t {
    automatic,  // the engine's choice (asked only: an engine resolves it to a size)
    whole,      // one team per message (Comb's fused kernels, the paper)
    bytes,      // parts of bytes() each, the last one shorter
  };

  constexpr PartSize() = default;  // automatic
  static constexpr PartSize automatic() { return {}; }
  static constexpr PartSize whole() { return PartSize(Kind::whole, 0); }
  // A size of at least one byte.
  static constexpr PartSize of(std::uint64_t bytes) { return PartSize(Kind::bytes, bytes); }

  HETPROBE_HD constexpr Kind kind() const { return kind_; }
  HETPROBE_HD constexpr bool is_automatic() const { return kind_ == Kind::automatic; }
  HETPROBE_HD constexpr bool is_whole() const { return kind_ == Kind::whole; }
  HETPROBE_HD constexpr bool is_bytes() const { return kind_ == Kind::bytes; }
  // The size of a part; only for Kind::bytes.
  HETPROBE_HD constexpr std::uint64_t bytes() const { return bytes_; }

  friend constexpr bool operator==(const PartSize& a, const PartSize& b) {
    return a.kind_ == b.kind_ && a.bytes_ == b.bytes_;
  }

 private:
  constexpr PartSize(Kind kind, std::uint64_t bytes) : kind_(kind), bytes_(bytes) {}
  Kind kind_ = Kind::automatic;
  std::uint64_t bytes_ = 0;
};

}  // namespace hetprobe
