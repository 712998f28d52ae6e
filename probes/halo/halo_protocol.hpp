// The device side of the halo-exchange proxy (probe `halo`), written once for
// every backend: how one team (a GPU block; a host thread) packs one outgoing
// message or unpacks one incoming one, and the flags that let the CPU and the
// GPU hand messages to each other (paper 002 Sec. 3.1; thesis 003 Sec. 3.2-3.4).
//
// A long message is split into parts of part_size, one team each, so that it
// moves at the link's rate: one block reading pinned memory word by word
// waits a microsecond per load and reaches about 1 GB/s. Teams move 16-byte
// units, kHaloUnroll of them in flight per thread. The parts of a message meet
// in a HaloPartState (device memory): the last part to count writes the
// stamp, raises the flag and resets the state for the next launch.
//
// pack m:   every thread writes its words of message m (halo_word), fences at
//           system scope; barrier; the leader reads the buffer back (the
//           data has arrived), stamps the end and tells the CPU
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
#include "probes/halo/part_size.hpp"
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
  unsigned long long start, end;  // device timer ticks: the work (unpack: after its flag came); first part to last
  unsigned long long mismatched_words;
  unsigned long long status;  // halo_status_ok or halo_status_timeout
};

// Where the parts of one message meet (device memory, one per message). The
// last part to end reads it and resets it to the state below for the next launch.
struct HaloPartState {
  unsigned long long done = 0;       // parts ended
  unsigned long long start = ~0ull;  // earliest part start (device timer ticks)
  unsigned long long end = 0;        // latest part end (device timer ticks)
  unsigned long long bad = 0;        // mismatched words
  unsigned long long status = 0;     // the worst part's status
  // unpack: part 0 alone polls the message's flag in host memory (hundreds of
  // pollers would fill the link with reads) and passes what it saw on here:
  // (iteration << 1) | timed out. Iterations only grow, so it needs no reset.
  unsigned long long flag_seen = 0;
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
  PartSize part_size;              // whole, or a multiple of kHaloUnitBytes: never automatic (set by the engine)
  HaloPartState* parts;            // one per message, device memory (set by the engine); null for whole messages
};

inline constexpr std::uint64_t kHaloUnitBytes = 16;  // what one thread loads or stores at once
inline constexpr std::uint64_t kHaloUnroll = 4;      // units each thread has in flight
// Between two reads of HaloPartState::flag_seen: hundreds of parts reading
// one word of device memory back to back would slow the pack beside them.
inline constexpr std::uint64_t kHaloSeenPauseTicks = 128;

struct alignas(16) HaloUnit {
  std::uint64_t lo, hi;
};

// Teams message `bytes` is split into: parts of `size` (whole or bytes), the last one shorter.
HETPROBE_HD inline std::uint64_t halo_parts(std::uint64_t bytes, PartSize size) {
  return size.is_whole() || bytes <= size.bytes() ? 1 : (bytes + size.bytes() - 1) / size.bytes();
}

// The teams of a launch over `table`: every message's parts, in message order.
HETPROBE_HD inline std::uint64_t halo_teams(const HaloMessageArgs* table, std::uint64_t count, PartSize size) {
  std::uint64_t teams = 0;
  for (std::uint64_t m = 0; m < count; ++m) teams += halo_parts(table[m].bytes, size);
  return teams;
}

// Team `team`'s message and part; message == count past the last team.
struct HaloPart {
  std::uint64_t message, part, parts;
};
HETPROBE_HD inline HaloPart halo_part_of(const HaloMessageArgs* table, std::uint64_t count, PartSize size,
                                         std::uint64_t team) {
  for (std::uint64_t m = 0; m < count; ++m) {
    const std::uint64_t parts = halo_parts(table[m].bytes, size);
    if (team < parts) return {m, team, parts};
    team -= parts;
  }
  return {count, 0, 1};
}

// Byte range [begin, end) of part `part` of `parts`.
struct HaloSlice {
  std::uint64_t begin, end;
};
HETPROBE_HD inline HaloSlice halo_slice(std::uint64_t bytes, PartSize size, std::uint64_t part, std::uint64_t parts) {
  if (parts <= 1) return {0, bytes};
  const std::uint64_t begin = part * size.bytes();
  return {begin, part + 1 == parts ? bytes : begin + size.bytes()};
}

// Byte j of the message (words are little endian).
HETPROBE_HD inline unsigned char halo_byte(std::uint64_t iteration, std::uint64_t sender, std::uint64_t tag,
                                           std::uint64_t j) {
  return static_cast<unsigned char>(halo_word(iteration, sender, tag, j / 8) >> (8 * (j % 8)));
}

// Team: rank(), size(), sync(), timer(), fence_system(), fence_device() (for
// what only the device reads: the parts' states), load_acquire(),
// store_release(), read_shared()/write_shared() on `slot` (team-visible),
// add_shared(slot, x): every thread adds x to the slot, seen after sync();
// compare_swap(p, expected, desired), fetch_add(p, x), fetch_min(p, x),
// fetch_max(p, x): atomics on device memory, returning what was there;
// relax(ticks): a pause between two flag reads (GPU threads sleep `ticks`, or go on at 0; host
// threads go on), and optionally pause_in_wait (device_wait.hpp: host threads sleep once a wait is long).

// A task-queue entry: the message index, tagged with the iteration so the
// queue needs no reset between iterations (24 bits of index).
HETPROBE_HD inline unsigned long long halo_queue_entry(std::uint64_t iteration, std::uint64_t m) {
  return (iteration << 24) | m;
}
HETPROBE_HD inline bool halo_queue_entry_of(unsigned long long entry, std::uint64_t iteration) {
  return (entry >> 24) == (iteration & 0xFFFFFFFFFFull);
}

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

// The leader of a part that has ended (its writes fenced): with one part it
// stamps the message; with several it adds its part to the message's state
// and only the last part to count stamps (the first start to the latest
// end: the part that counts last may have ended before another) and resets
// the state. A part ends when its data does, before this bookkeeping, as the
// bare program times it (tests/gpu/bare_unpack.cu): on two H200s, one launch
// each, stamping after it held cube 400's pinned stages 3-11% lower
// (notebooks/data/halo-delivery/part-ends.txt.gz).
// The states live in device memory and only the device reads them, so device
// scope orders them; what the CPU reads (the flag) is fenced by the caller.
// Returns whether this part stamped, so the message is complete.
template <class Team>
HETPROBE_HD inline bool halo_end_part(Team& team, const HaloArgs& a, std::uint64_t m, std::uint64_t parts,
                                      std::uint64_t start, unsigned long long bad, unsigned long long status) {
  HaloStamp& stamp = a.stamps[m];
  std::uint64_t end = team.timer();
  if (parts > 1) {
    HaloPartState& st = a.parts[m];
    team.fetch_min(&st.start, start);
    team.fetch_max(&st.end, end);
    if (bad != 0) team.fetch_add(&st.bad, bad);
    team.fetch_max(&st.status, status);
    team.fence_device();  // this part's results before its count
    if (team.fetch_add(&st.done, 1) + 1 < parts) return false;
    team.fence_device();  // every part's results after the count
    start = team.fetch_add(&st.start, 0);
    end = team.fetch_max(&st.end, 0);
    bad = team.fetch_add(&st.bad, 0);
    status = team.fetch_max(&st.status, 0);
    team.fetch_max(&st.start, ~0ull);  // reset for the next launch (HaloPartState{})
    team.fetch_min(&st.end, 0);
    team.fetch_min(&st.bad, 0);
    team.fetch_min(&st.status, 0);
    team.fetch_min(&st.done, 0);
  }
  stamp.start = start;
  stamp.end = end;
  stamp.mismatched_words = bad;
  stamp.status = status;
  return true;
}

// `msg` is message m of a.messages, or a copy of it nearer the team (a GPU
// block keeps one in shared memory: the table is in pinned host memory).
// The team writes part `part` of `parts` (halo_slice); the leader's stamp
// starts at `start` (its timer when the team began). Returns, on the leader,
// its timer when every member's writes were fenced: when a team that packs
// messages one after the other begins the next one.
template <class Team>
HETPROBE_HD inline std::uint64_t halo_pack_since(Team& team, const HaloArgs& a, std::uint64_t m,
                                                 const HaloMessageArgs& msg, std::uint64_t start,
                                                 std::uint64_t part = 0, std::uint64_t parts = 1) {
  const bool leader = team.rank() == 0;
  const HaloSlice s = halo_slice(msg.bytes, a.part_size, part, parts);
  const std::uint64_t units_end = s.end / kHaloUnitBytes;
  auto* out = reinterpret_cast<HaloUnit*>(msg.buffer);
  for (std::uint64_t u = s.begin / kHaloUnitBytes + team.rank(); u < units_end; u += team.size())
    out[u] = {halo_word(a.iteration, msg.sender, msg.tag, 2 * u),
              halo_word(a.iteration, msg.sender, msg.tag, 2 * u + 1)};
  if (leader)  // a part that does not end on a unit ends with single bytes
    for (std::uint64_t j = units_end * kHaloUnitBytes; j < s.end; ++j)
      msg.buffer[j] = halo_byte(a.iteration, msg.sender, msg.tag, j);
  team.fence_system();
  team.sync();
  const std::uint64_t fenced = leader ? team.timer() : 0;
  // Delivery, not issue: a fence lets the stamp go once the stores are queued
  // for the link, and on a GPU megabytes of them can still be on their way.
  // A read of the buffer cannot pass the writes before it (PCIe ordering), so
  // its return means they are in host memory and visible to the CPU.
  if (leader && s.end > s.begin)
    (void)team.load_acquire(reinterpret_cast<const unsigned long long*>(msg.buffer + s.begin));
  if (leader && halo_end_part(team, a, m, parts, start, 0, halo_status_ok)) {
    team.fence_system();
    if (a.queue != nullptr) halo_enqueue(team, a, m);
    else if (a.flags != nullptr) team.store_release(&a.flags[m].value, a.iteration);
  }
  return fenced;
}

template <class Team>
HETPROBE_HD inline void halo_pack(Team& team, const HaloArgs& a, std::uint64_t m, const HaloMessageArgs& msg,
                                  std::uint64_t part = 0, std::uint64_t parts = 1) {
  halo_pack_since(team, a, m, msg, team.rank() == 0 ? team.timer() : 0, part, parts);
}

// Checks and copies units [u, units_end) of the team's stride, kHaloUnroll
// loads in flight per thread; returns the mismatched words.
template <class Team>
HETPROBE_HD inline unsigned long long halo_unpack_units(Team& team, const HaloArgs& a, const HaloMessageArgs& msg,
                                                        std::uint64_t first, std::uint64_t units_end) {
  const auto* in = reinterpret_cast<const HaloUnit*>(msg.buffer);
  auto* halo = reinterpret_cast<HaloUnit*>(msg.halo);
  const std::uint64_t stride = team.size();
  unsigned long long bad = 0;
  for (std::uint64_t u = first + team.rank(); u < units_end; u += stride * kHaloUnroll) {
    HaloUnit v[kHaloUnroll];
    for (std::uint64_t k = 0; k < kHaloUnroll; ++k)
      if (u + k * stride < units_end) v[k] = in[u + k * stride];
    for (std::uint64_t k = 0; k < kHaloUnroll; ++k) {
      const std::uint64_t at = u + k * stride;
      if (at >= units_end) break;
      bad += (v[k].lo != halo_word(a.iteration, msg.sender, msg.tag, 2 * at)) +
             (v[k].hi != halo_word(a.iteration, msg.sender, msg.tag, 2 * at + 1));
      halo[at] = v[k];
    }
  }
  return bad;
}

template <class Team>
HETPROBE_HD inline void halo_unpack(Team& team, const HaloArgs& a, std::uint64_t m, const HaloMessageArgs& msg,
                                    unsigned long long* slot, std::uint64_t part = 0, std::uint64_t parts = 1) {
  const bool leader = team.rank() == 0;
  std::uint64_t start = 0;
  if (leader) {
    unsigned long long status = halo_status_ok;
    if (a.flags != nullptr) {
      // Part 0 polls the host's flag; the others the word part 0 sets.
      unsigned long long* seen = parts > 1 ? &a.parts[m].flag_seen : nullptr;
      const bool poll_host = part == 0;
      const std::uint64_t t0 = team.timer();
      for (;;) {
        if (poll_host ? team.load_acquire(&a.flags[m].value) >= a.iteration
                      : (team.fetch_add(seen, 0) >> 1) >= a.iteration) {
          if (!poll_host && (team.fetch_add(seen, 0) & 1)) status = halo_status_timeout;
          break;
        }
        const std::uint64_t waited = team.timer() - t0;
        if (waited > a.timeout_ticks || !pause_in_wait(team, waited)) {
          status = halo_status_timeout;
          break;
        }
        team.relax(poll_host ? a.poll_pause_ticks : kHaloSeenPauseTicks);
      }
      team.fence_system();  // part 0: what it acquired before it tells; the others: after they heard
      if (poll_host && seen != nullptr)
        team.fetch_max(seen, (a.iteration << 1) | (status == halo_status_timeout ? 1 : 0));
    }
    team.write_shared(slot, status);
    start = team.timer();
  }
  team.sync();
  const unsigned long long status = team.read_shared(slot);
  team.sync();  // everyone has read the status before the slot counts mismatches
  if (leader) team.write_shared(slot, 0);
  team.sync();
  if (status == halo_status_ok) {
    const HaloSlice s = halo_slice(msg.bytes, a.part_size, part, parts);
    const std::uint64_t units_end = s.end / kHaloUnitBytes;
    unsigned long long bad = halo_unpack_units(team, a, msg, s.begin / kHaloUnitBytes, units_end);
    if (leader)
      for (std::uint64_t j = units_end * kHaloUnitBytes; j < s.end; ++j) {
        const auto b = msg.buffer[j];
        bad += b != halo_byte(a.iteration, msg.sender, msg.tag, j);
        msg.halo[j] = b;
      }
    if (bad != 0) team.add_shared(slot, bad);  // a grid's slot is one word: 10^5 atomics would serialise
  }
  team.sync();
  if (leader) halo_end_part(team, a, m, parts, start, status == halo_status_ok ? team.read_shared(slot) : 0, status);
}

// A team's share of a stage: teams first, first + stride, ... of
// halo_part_of over `table` (a.messages, or a copy nearer the team), each
// packed or unpacked in turn (visit(part)). A GPU block is team blockIdx.x of
// gridDim.x; a host thread, of the engine's threads.
template <class Visit>
HETPROBE_HD inline void halo_team_parts(const HaloArgs& a, const HaloMessageArgs* table, std::uint64_t first,
                                        std::uint64_t stride, Visit&& visit) {
  for (std::uint64_t t = first;; t += stride) {
    const HaloPart p = halo_part_of(table, a.count, a.part_size, t);
    if (p.message >= a.count) break;
    visit(p);
  }
}
template <class Team>
HETPROBE_HD inline void halo_pack_teams(Team& team, const HaloArgs& a, const HaloMessageArgs* table,
                                        std::uint64_t first, std::uint64_t stride) {
  halo_team_parts(a, table, first, stride,
                  [&](const HaloPart& p) { halo_pack(team, a, p.message, table[p.message], p.part, p.parts); });
}
template <class Team>
HETPROBE_HD inline void halo_unpack_teams(Team& team, const HaloArgs& a, const HaloMessageArgs* table,
                                          unsigned long long* slot, std::uint64_t first, std::uint64_t stride) {
  halo_team_parts(a, table, first, stride,
                  [&](const HaloPart& p) { halo_unpack(team, a, p.message, table[p.message], slot, p.part, p.parts); });
}

// notify-stacked (paper 002 Sec. 4.2): pack and unpack in one persistent
// kernel. With parts (pack.part_size not whole), block b packs its share of
// the sends' parts, then unpacks its share of the receives', as
// notify-stream's kernels do (halo_pack_teams, halo_unpack_teams): the paper's grid spent a
// grid barrier or more on each long message (cube 400's pinned stages at
// 0.28-0.44 of the plain kernels on two H200s). Whole, the paper's form:
// the long messages (whole_grid) are packed one after the other by
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
  if (!pack.part_size.is_whole()) {
    halo_pack_teams(block, pack, sends, block_index, blocks);
    halo_unpack_teams(block, unpack, recvs, block_slot, block_index, blocks);
    return;
  }
  // The grid's leader stamps, reads back and raises the flag after a long
  // message while the other blocks already write the next one: that message
  // starts when the barrier let them go, not when the leader comes to it.
  std::uint64_t since = grid.rank() == 0 ? grid.timer() : 0;
  for (std::uint64_t m = 0; m < pack.count; ++m)
    if (sends[m].whole_grid) since = halo_pack_since(grid, pack, m, sends[m], since);
  for (std::uint64_t m = 0, k = 0; m < pack.count; ++m)
    if (!sends[m].whole_grid && k++ % blocks == block_index) halo_pack(block, pack, m, sends[m]);
  for (std::uint64_t m = 0, k = 0; m < unpack.count; ++m)
    if (!recvs[m].whole_grid && k++ % blocks == block_index) halo_unpack(block, unpack, m, recvs[m], block_slot);
  for (std::uint64_t m = 0; m < unpack.count; ++m)
    if (recvs[m].whole_grid) halo_unpack(grid, unpack, m, recvs[m], grid_slot);
}

}  // namespace hetprobe
