// When a pack's stamp ends (issue 35): after its data is in host memory, not
// after its stores were issued. A one-thread team that logs what it does shows
// the order halo_protocol.hpp keeps on every backend: the writes, a fence, the
// barrier, a read of the buffer back (on a GPU it cannot pass the writes over
// PCIe, so its return is their arrival), then the end stamp, then the flag.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "probes/halo/halo_protocol.hpp"

namespace hetprobe {
namespace {

struct LoggingTeam {
  std::vector<std::string>* log;
  const unsigned char* buffer;  // the message's, to name a read of it
  std::uint64_t ticks = 100;
  std::uint64_t rank() const { return 0; }
  std::uint64_t size() const { return 1; }
  std::uint64_t timer() {
    log->push_back("timer " + std::to_string(ticks));
    return ticks++;
  }
  void fence_system() { log->push_back("fence"); }
  void fence_device() { log->push_back("fence device"); }
  void sync() { log->push_back("sync"); }
  unsigned long long load_acquire(const unsigned long long* p) {
    const auto* at = reinterpret_cast<const unsigned char*>(p);
    log->push_back(at >= buffer && at < buffer + 4096 ? "read back" : "read other");
    return *p;
  }
  void store_release(unsigned long long* p, unsigned long long v) {
    *p = v;
    log->push_back("flag");
  }
  // Parts and the task queue: not used by one whole message on a flag.
  unsigned long long fetch_add(unsigned long long* p, unsigned long long x) { return std::exchange(*p, *p + x); }
  unsigned long long fetch_min(unsigned long long* p, unsigned long long x) {
    return std::exchange(*p, std::min(*p, x));
  }
  unsigned long long fetch_max(unsigned long long* p, unsigned long long x) {
    return std::exchange(*p, std::max(*p, x));
  }
  unsigned long long compare_swap(unsigned long long* p, unsigned long long expected, unsigned long long desired) {
    const unsigned long long seen = *p;
    if (seen == expected) *p = desired;
    return seen;
  }
};

struct Message {
  alignas(16) unsigned char buffer[4096] = {};
  HaloMessageArgs args{buffer, nullptr, 4096, 1, 7, 0};
  FlagLine flag{};
  HaloStamp stamp{};
  HaloArgs halo() {
    HaloArgs a{};
    a.messages = &args;
    a.count = 1;
    a.flags = &flag;
    a.stamps = &stamp;
    a.iteration = 3;
    a.part_size = PartSize::whole();
    return a;
  }
  // The message in two parts of 2048 B, meeting in `state`.
  HaloArgs halo_in_parts(HaloPartState& state) {
    HaloArgs a = halo();
    a.parts = &state;
    a.part_size = PartSize::of(2048);
    return a;
  }
};

// A message in two parts, its parts' state and a logging team over it.
struct TwoParts {
  std::vector<std::string> log;
  Message m;
  HaloPartState state;
  LoggingTeam team{&log, m.buffer};
  HaloArgs a = m.halo_in_parts(state);
};

TEST(HaloDelivery, TheEndStampFollowsAReadBackOfTheWrittenBuffer) {
  std::vector<std::string> log;
  Message m;
  LoggingTeam team{&log, m.buffer};
  const HaloArgs a = m.halo();
  halo_pack(team, a, 0, m.args);
  const std::vector<std::string> expected = {"timer 100", "fence",     "sync",  "timer 101",
                                             "read back", "timer 102", "fence", "flag"};
  EXPECT_EQ(log, expected);
  EXPECT_EQ(m.stamp.start, 100u);
  EXPECT_EQ(m.stamp.end, 102u);  // after the read back, not at the fence (101)
  EXPECT_EQ(m.flag.value, 3u);
  EXPECT_EQ(m.stamp.status, halo_status_ok);
  EXPECT_EQ(reinterpret_cast<const std::uint64_t*>(m.buffer)[1], halo_word(3, 1, 7, 1));
}

// A team that packs messages one after the other (notify-stacked's grid)
// starts the next one when the barrier let its members go: the time
// halo_pack_since returns, before its leader's read back and flag.
TEST(HaloDelivery, TheNextMessageStartsAtThePreviousBarrier) {
  std::vector<std::string> log;
  Message first, second;
  LoggingTeam team{&log, first.buffer};
  const HaloArgs a = first.halo(), b = second.halo();
  const std::uint64_t released = halo_pack_since(team, a, 0, first.args, team.timer());
  EXPECT_EQ(released, 101u);
  team.buffer = second.buffer;
  halo_pack_since(team, b, 0, second.args, released);
  EXPECT_EQ(second.stamp.start, 101u);  // not 103, when the leader came to it
  EXPECT_LE(second.stamp.start, first.stamp.end);
  EXPECT_GT(second.stamp.end, second.stamp.start);
}

// A message in parts ends when its last part's data does: the stamp is taken
// before that part's bookkeeping (device-scope fences and atomics on the
// parts' state, which only the device reads), and the flag after it, fenced
// at system scope for the CPU.
TEST(HaloDelivery, APartEndsBeforeItsBookkeeping) {
  TwoParts two;
  auto& [log, m, state, team, a] = two;
  halo_pack_since(team, a, 0, m.args, 100, 0, 2);
  EXPECT_EQ(state.done, 1u);  // the first part counted, no stamp, no flag
  EXPECT_EQ(m.flag.value, 0u);
  log.clear();
  halo_pack_since(team, a, 0, m.args, 110, 1, 2);
  const std::vector<std::string> expected = {"fence",        "sync",         "timer 102", "read back", "timer 103",
                                             "fence device", "fence device", "fence",     "flag"};
  EXPECT_EQ(log, expected);
  EXPECT_EQ(m.stamp.start, 100u);  // the first part's start
  EXPECT_EQ(m.stamp.end, 103u);    // the last part's data delivered, before its bookkeeping
  EXPECT_EQ(m.flag.value, 3u);
  EXPECT_EQ(state.done, 0u);  // reset for the next launch
}

// The part that counts last need not be the one that ended last: the stamp
// ends at the latest part's end, whichever part counts last.
TEST(HaloDelivery, AMessageEndsAtItsLatestPartsEnd) {
  TwoParts two;
  auto& [log, m, state, team, a] = two;
  team.ticks = 200;  // this part's data is done at 201
  halo_pack_since(team, a, 0, m.args, 150, 0, 2);
  team.ticks = 100;  // the other's at 101, and it counts last
  halo_pack_since(team, a, 0, m.args, 90, 1, 2);
  EXPECT_EQ(m.stamp.start, 90u);
  EXPECT_EQ(m.stamp.end, 201u);
  EXPECT_EQ(m.flag.value, 3u);
  EXPECT_EQ(state.end, 0u);  // reset for the next launch
}

}  // namespace
}  // namespace hetprobe
