// The writer's protocol, written once for every backend: what each thread
// writes, when the ready flag is set, how the stop flag is seen and when the
// writer gives up. GPU kernels and host threads run the same run_writer().
//
// Sequence for one task (paper 002 Sec. 4.3; DIGEST 4.5):
//   every thread writes its share of `pre` with payload_word(epoch, i)
//   every thread: system-scope fence; team barrier
//   leader: ready = epoch (release)
//   no post phase (SSB): leader records the result, done = epoch; exit
//   else loop: write all of `post` with post_word(pass, i);
//              leader decides stop (stop >= epoch) or timeout, broadcasts it;
//              barrier; all read the decision; leader publishes passes
//   leader records the result (status, passes, timer stamps), done = epoch
#pragma once

#include <cstddef>
#include <cstdint>

#include "probes/device/portability.hpp"

namespace hetprobe {

// One flag per 128-byte line, so the two sides never share a line.
struct alignas(128) FlagLine {
  unsigned long long value;
};

// The flag block, in pinned host memory. Epochs only grow, so a flag compared
// with >= needs no reset between tasks.
struct WriterControl {
  FlagLine ready;   // device -> host: payload of this epoch is written and visible
  FlagLine stop;    // host -> device: stop the writer of every epoch <= this
  FlagLine passes;  // device -> host: post passes completed in the running epoch
  FlagLine done;    // device -> host: the result below belongs to this epoch
  struct alignas(128) Result {
    unsigned long long status;  // writer_status_ok or writer_status_timeout
    unsigned long long passes;
    unsigned long long t_start, t_ready, t_end;  // device timer ticks
  } result;
};

inline constexpr unsigned long long writer_status_ok = 1;
inline constexpr unsigned long long writer_status_timeout = 2;

// 56 bits spread over 8 bytes, 7 per byte, leaving bit 7 of every byte clear.
HETPROBE_HD inline std::uint64_t spread7(std::uint64_t x) {
  std::uint64_t out = 0;
  for (int b = 0; b < 8; ++b) out |= ((x >> (7 * b)) & 0x7Full) << (8 * b);
  return out;
}
// Word i of the payload of sample `epoch`: 21 bits of epoch and 35 of index
// (256 GiB of words), 7 to a byte, so a stale or shifted word is caught.
HETPROBE_HD inline std::uint64_t payload_word(std::uint64_t epoch, std::uint64_t i) {
  return spread7(((epoch & 0x1FFFFFull) << 35) | (i & 0x7FFFFFFFFull));
}
// Word i of post-ready pass `pass`: bit 7 of every byte set, so every byte of
// it differs from every payload byte and a torn payload is counted byte-exact.
HETPROBE_HD inline std::uint64_t post_word(std::uint64_t pass, std::uint64_t i) {
  return payload_word(pass, i) | 0x8080808080808080ull;
}
// Byte j of a region written from an 8-byte-aligned start (little endian).
HETPROBE_HD inline unsigned char payload_byte(std::uint64_t epoch, std::uint64_t j) {
  return static_cast<unsigned char>(payload_word(epoch, j / 8) >> (8 * (j % 8)));
}

struct PayloadValue {
  std::uint64_t epoch;
  HETPROBE_HD std::uint64_t operator()(std::uint64_t i) const { return payload_word(epoch, i); }
};
struct PostValue {
  std::uint64_t pass;
  HETPROBE_HD std::uint64_t operator()(std::uint64_t i) const { return post_word(pass, i); }
};

// Writes every byte of [base, base + bytes): 8-byte words from `rank` with
// stride `size`; the unaligned head and the tail byte by byte by rank 0. Word
// k of the region gets value(k); only a region with an 8-aligned start gets
// the exact byte pattern payload_byte() describes (the send buffer always does).
template <class Value>
HETPROBE_HD inline void write_region(unsigned char* base, std::uint64_t bytes, Value value, std::uint64_t rank,
                                     std::uint64_t size) {
  const std::uint64_t misalign = reinterpret_cast<std::uintptr_t>(base) % 8;
  std::uint64_t head = misalign ? 8 - misalign : 0;
  if (head > bytes) head = bytes;
  const std::uint64_t words = (bytes - head) / 8;
  auto* body = reinterpret_cast<std::uint64_t*>(base + head);
  for (std::uint64_t k = rank; k < words; k += size) body[k] = value(k);
  if (rank == 0) {
    const std::uint64_t tail_start = head + words * 8;
    for (std::uint64_t j = 0; j < head; ++j) base[j] = static_cast<unsigned char>(value(0) >> (8 * j));
    for (std::uint64_t j = tail_start; j < bytes; ++j)
      base[j] = static_cast<unsigned char>(value((j - head) / 8) >> (8 * ((j - head) % 8)));
  }
}

struct WriterArgs {
  unsigned char* pre;
  std::uint64_t pre_bytes;
  unsigned char* post;  // null: no post phase
  std::uint64_t post_bytes;
  WriterControl* control;         // device address of the flag block
  unsigned long long* broadcast;  // two slots, visible to the whole team
  std::uint64_t epoch;
  std::uint64_t timeout_ticks;  // device timer ticks from start to giving up
};

// Team: rank(), size(), sync() (barrier with memory ordering among the team),
// timer(), fence_system(), load_acquire/store_release/store_relaxed (system
// scope), read_shared/write_shared (team-visible slots).
template <class Team>
HETPROBE_HD inline void run_writer(Team& team, const WriterArgs& a) {
  const bool leader = team.rank() == 0;
  const std::uint64_t t_start = leader ? team.timer() : 0;
  write_region(a.pre, a.pre_bytes, PayloadValue{a.epoch}, team.rank(), team.size());
  team.fence_system();
  team.sync();
  std::uint64_t t_ready = 0;
  if (leader) {
    t_ready = team.timer();
    team.store_release(&a.control->ready.value, a.epoch);
  }
  std::uint64_t passes = 0;
  unsigned long long status = writer_status_ok;
  if (a.post != nullptr && a.post_bytes > 0) {
    for (;;) {
      write_region(a.post, a.post_bytes, PostValue{passes}, team.rank(), team.size());
      // One thread decides, all follow: blocks must never disagree on whether
      // to meet at the next barrier.
      if (leader) {
        unsigned long long decision = 0;
        if (team.load_acquire(&a.control->stop.value) >= a.epoch) decision = writer_status_ok;
        else if (team.timer() - t_start > a.timeout_ticks) decision = writer_status_timeout;
        team.write_shared(&a.broadcast[passes & 1], decision);
      }
      team.sync();
      const unsigned long long decision = team.read_shared(&a.broadcast[passes & 1]);
      ++passes;
      if (leader) team.store_relaxed(&a.control->passes.value, passes);
      if (decision != 0) {
        status = decision;
        break;
      }
    }
  }
  if (leader) {
    a.control->result.status = status;
    a.control->result.passes = passes;
    a.control->result.t_start = t_start;
    a.control->result.t_ready = t_ready;
    a.control->result.t_end = team.timer();
    team.fence_system();
    team.store_release(&a.control->done.value, a.epoch);
  }
}

}  // namespace hetprobe
