// The device side of the halo-exchange proxy (probe `halo`), written once for
// every backend: how one team (a GPU block; a host thread) packs one outgoing
// message or unpacks one incoming one, and the flags that let the CPU and the
// GPU hand messages to each other (paper 002 Sec. 3.1; thesis 003 Sec. 3.2-3.4).
//
// pack m:   every thread writes its words of message m (halo_word), fences at
//           system scope; barrier; the leader stamps the end and tells the CPU
//           m is ready: with a channel (one flag per message, the thesis's
//           per-block channel) it stores send_ready[m] = iteration; with a queue
//           (the thesis's single task queue) it reserves the next slot with an
//           atomic compare-and-swap on a tail in device memory and stores m there.
// unpack m: with flags, the leader waits until unpack_ready[m] >= iteration
//           (the CPU stores it once m has arrived), giving up after
//           timeout_ticks; barrier; every thread checks its words of the
//           received buffer against what the sender must have written and
//           copies them into the halo region; the mismatches are counted.
#pragma once

#include <cstdint>

#include "probes/device/device_wait.hpp"
#include "probes/device/portability.hpp"
#include "probes/writer/writer_protocol.hpp"

namespace hetprobe {

// Word i of the message with `tag` that `sender` packed in `iteration` (the
// thesis encodes iteration, rank and block the same way, sec. 3.2): 14 bits
// of iteration, 12 of sender, 8 of tag and 22 of index, 7 bits to a byte, so
// a stale, misrouted or shifted word is caught.
HETPROBE_HD inline std::uint64_t halo_word(std::uint64_t iteration, std::uint64_t sender, std::uint64_t tag,
                                           std::uint64_t i) {
  return spread7(((iteration & 0x3FFFull) << 42) | ((sender & 0xFFFull) << 30) | ((tag & 0xFFull) << 22) |
                 (i & 0x3FFFFFull));
}

// One message as the device sees it (an array of these lives in pinned memory).
struct HaloMessageArgs {
  unsigned char* buffer;  // device address: what pack writes, or what unpack reads
  unsigned char* halo;    // unpack: where the data goes (device memory); pack: null
  std::uint64_t bytes;
  std::uint64_t sender;  // the rank whose payload this is
  std::uint64_t tag;
  std::uint64_t whole_grid;  // notify-stacked: 1 = a long message, packed or unpacked by every block
};

inline constexpr unsigned long long halo_status_ok = 1;
inline constexpr unsigned long long halo_status_timeout = 2;

// What the device reports per message, in pinned memory (one line each).
struct alignas(128) HaloStamp {
  unsigned long long start, end;  // device timer ticks: the work (unpack: after its flag came)
  unsigned long long mismatched_words;
  unsigned long long status;  // halo_status_ok or halo_status_timeout
};

struct HaloArgs {
  const HaloMessageArgs* messages;  // device addresses from here on
  std::uint64_t count;
  FlagLine* flags;            // pack: send-ready (device -> host); unpack: unpack-ready (host -> device); null: none
  unsigned long long* queue;  // pack: the task queue (pinned) instead of flags; null: none
  unsigned long long* queue_tail;  // its tail, in device memory: (iteration << 24) | entries
  HaloStamp* stamps;
  std::uint64_t iteration;  // > 0 and growing, so flags need no reset
  std::uint64_t timeout_ticks;
  std::uint64_t poll_pause_ticks;  // unpack: pause between two reads of a flag (0: none)
};

// A task-queue entry: the message index, tagged with the iteration so the
// queue needs no reset between iterations (24 bits of index).
HETPROBE_HD inline unsigned long long halo_queue_entry(std::uint64_t iteration, std::uint64_t m) {
  return (iteration << 24) | m;
}
HETPROBE_HD inline bool halo_queue_entry_of(unsigned long long entry, std::uint64_t iteration) {
  return (entry >> 24) == (iteration & 0xFFFFFFFFFFull);
}

// Team: rank(), size(), sync(), timer(), fence_system(), load_acquire(),
// store_release(), read_shared()/write_shared() on `slot` (team-visible),
// add_shared(slot, x): every thread adds x to the slot, seen after sync();
// compare_swap(p, expected, desired): atomic on device memory, returns what was there;
// relax(ticks): a pause between two flag reads (GPU threads sleep `ticks`, or go on at 0; host
// threads go on), and optionally pause_in_wait (device_wait.hpp: host threads sleep once a wait is long).

// The leader appends m to the task queue: the slot comes from the tail, which
// counts this iteration's entries (a tail of an older iteration counts as 0).
template <class Team>
HETPROBE_HD inline void halo_enqueue(Team& team, const HaloArgs& a, std::uint64_t m) {
  unsigned long long expected = 0, slot = 0;
  for (;;) {
    slot = halo_queue_entry_of(expected, a.iteration) ? (expected & 0xFFFFFFull) : 0;
    const unsigned long long seen = team.compare_swap(a.queue_tail, expected, halo_queue_entry(a.iteration, slot + 1));
    if (seen == expected) break;
    expected = seen;
  }
  team.store_release(&a.queue[slot], halo_queue_entry(a.iteration, m));
}

// `msg` is message m of a.messages, or a copy of it nearer the team (a GPU
// block keeps one in shared memory: the table is in pinned host memory).
template <class Team>
HETPROBE_HD inline void halo_pack(Team& team, const HaloArgs& a, std::uint64_t m, const HaloMessageArgs& msg) {
  const bool leader = team.rank() == 0;
  if (leader) a.stamps[m].start = team.timer();
  const std::uint64_t words = msg.bytes / 8;
  auto* out = reinterpret_cast<std::uint64_t*>(msg.buffer);
  for (std::uint64_t i = team.rank(); i < words; i += team.size())
    out[i] = halo_word(a.iteration, msg.sender, msg.tag, i);
  if (leader)  // a size that is not a multiple of 8 ends with part of the next word
    for (std::uint64_t j = words * 8; j < msg.bytes; ++j)
      msg.buffer[j] = static_cast<unsigned char>(halo_word(a.iteration, msg.sender, msg.tag, words) >> (8 * (j % 8)));
  team.fence_system();
  team.sync();
  if (leader) {
    a.stamps[m].end = team.timer();
    a.stamps[m].status = halo_status_ok;
    team.fence_system();
    if (a.queue != nullptr) halo_enqueue(team, a, m);
    else if (a.flags != nullptr) team.store_release(&a.flags[m].value, a.iteration);
  }
}

template <class Team>
HETPROBE_HD inline void halo_unpack(Team& team, const HaloArgs& a, std::uint64_t m, const HaloMessageArgs& msg,
                                    unsigned long long* slot) {
  const bool leader = team.rank() == 0;
  if (leader) {
    unsigned long long status = halo_status_ok;
    if (a.flags != nullptr) {
      const std::uint64_t t0 = team.timer();
      while (team.load_acquire(&a.flags[m].value) < a.iteration) {
        const std::uint64_t waited = team.timer() - t0;
        if (waited > a.timeout_ticks || !pause_in_wait(team, waited)) {
          status = halo_status_timeout;
          break;
        }
        team.relax(a.poll_pause_ticks);
      }
    }
    team.write_shared(slot, status);
    a.stamps[m].start = team.timer();
  }
  team.sync();
  const unsigned long long status = team.read_shared(slot);
  team.sync();  // everyone has read the status before the slot counts mismatches
  if (leader) team.write_shared(slot, 0);
  team.sync();
  if (status == halo_status_ok) {
    const std::uint64_t words = msg.bytes / 8;
    const auto* in = reinterpret_cast<const volatile std::uint64_t*>(msg.buffer);
    auto* halo = reinterpret_cast<std::uint64_t*>(msg.halo);
    unsigned long long bad = 0;
    for (std::uint64_t i = team.rank(); i < words; i += team.size()) {
      const std::uint64_t w = in[i];
      bad += w != halo_word(a.iteration, msg.sender, msg.tag, i);
      halo[i] = w;
    }
    if (leader)
      for (std::uint64_t j = words * 8; j < msg.bytes; ++j) {
        const auto b = static_cast<const volatile unsigned char*>(msg.buffer)[j];
        bad += b != static_cast<unsigned char>(halo_word(a.iteration, msg.sender, msg.tag, words) >> (8 * (j % 8)));
        msg.halo[j] = b;
      }
    if (bad != 0) team.add_shared(slot, bad);  // a grid's slot is one word: 10^5 atomics would serialise
  }
  team.sync();
  if (leader) {
    a.stamps[m].mismatched_words = status == halo_status_ok ? team.read_shared(slot) : 0;
    a.stamps[m].end = team.timer();
    a.stamps[m].status = status;
  }
}

// notify-stacked (paper 002 Sec. 4.2): pack and unpack in one persistent
// kernel. The long messages (whole_grid) are packed one after the other by
// the whole grid, a grid barrier after each (inside halo_pack); the short ones
// by one block each (block b takes the b-th, (b + blocks)-th, ... short one);
// then each block unpacks its short receives as their flags come, and last
// the whole grid unpacks the long receives, one after the other.
// `sends` and `recvs`: the message tables of pack and unpack, or copies.
template <class Grid, class Block>
HETPROBE_HD inline void halo_stacked(Grid& grid, Block& block, std::uint64_t block_index, std::uint64_t blocks,
                                     const HaloArgs& pack, const HaloMessageArgs* sends, const HaloArgs& unpack,
                                     const HaloMessageArgs* recvs, unsigned long long* block_slot,
                                     unsigned long long* grid_slot) {
  for (std::uint64_t m = 0; m < pack.count; ++m)
    if (sends[m].whole_grid) halo_pack(grid, pack, m, sends[m]);
  for (std::uint64_t m = 0, k = 0; m < pack.count; ++m)
    if (!sends[m].whole_grid && k++ % blocks == block_index) halo_pack(block, pack, m, sends[m]);
  for (std::uint64_t m = 0, k = 0; m < unpack.count; ++m)
    if (!recvs[m].whole_grid && k++ % blocks == block_index) halo_unpack(block, unpack, m, recvs[m], block_slot);
  for (std::uint64_t m = 0; m < unpack.count; ++m)
    if (recvs[m].whole_grid) halo_unpack(grid, unpack, m, recvs[m], grid_slot);
}

}  // namespace hetprobe
