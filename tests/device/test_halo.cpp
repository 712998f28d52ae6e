// The halo stages (halo_protocol.hpp), written once and run on every
// backend: host here (CI), cuda/hip under label gpu.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "probes/copy/copy_engine.hpp"
#include "probes/device/host_spin.hpp"
#include "probes/halo/halo_engine.hpp"
#include "probes/signal/host_signal_ops.hpp"
#include "tests/device/backend_under_test.hpp"

namespace hetprobe {
namespace {

// Sizes as a cube layout has them (24 B cells), one that is not a multiple of
// 8, and a long one that is no multiple of 16 either (split into parts: 64 KiB
// each on the host by default, 4 KiB where a test asks).
const std::vector<std::uint64_t> kBytes = {24, 1200, 60000, 13, 200003};
constexpr std::size_t kLong = 4;

class HaloTest : public BackendTest<std::string> {
 protected:
  void set_up_on_device() override {
    engine_ = device_->make_halo_engine();
    const std::size_t n = kBytes.size();
    std::size_t total = 0;
    for (auto b : kBytes) total += (b + 127) / 128 * 128;
    buffers_ = device_->alloc_pinned(total);
    halo_ = device_->alloc_device(total);
    tail_ = device_->alloc_device(128);
    // messages | queue | flags (send-ready, then unpack-ready) | stamps (pack, then unpack)
    control_ = device_->alloc_pinned(8192 + 2 * n * (sizeof(FlagLine) + sizeof(HaloStamp)));
    std::memset(control_.host(), 0, control_.size());
    messages_ = reinterpret_cast<HaloMessageArgs*>(control_.host());
    queue_ = reinterpret_cast<unsigned long long*>(control_.host() + 2048);
    flags_ = reinterpret_cast<FlagLine*>(control_.host() + 4096);
    stamps_ = reinterpret_cast<HaloStamp*>(reinterpret_cast<std::byte*>(flags_) + 2 * n * sizeof(FlagLine));
    std::size_t offset = 0;
    for (std::size_t m = 0; m < n; ++m) {
      messages_[m] = {reinterpret_cast<unsigned char*>(buffers_.device() + offset),
                      reinterpret_cast<unsigned char*>(halo_.device() + offset),
                      kBytes[m],
                      7,
                      m,
                      0};
      offset += (kBytes[m] + 127) / 128 * 128;
    }
  }

  template <class T>
  T* dev(T* host_address) {
    return reinterpret_cast<T*>(control_.device_at(reinterpret_cast<std::byte*>(host_address)));
  }
  // Unpack (and a stacked launch's unpack) uses the second half of the flags and stamps.
  HaloArgs args(bool unpack, std::uint64_t iteration, bool with_flags, bool with_queue = false) {
    const std::size_t half = unpack ? kBytes.size() : 0;
    return {dev(messages_),
            kBytes.size(),
            with_flags ? dev(flags_ + half) : nullptr,
            with_queue ? dev(queue_) : nullptr,
            with_queue ? reinterpret_cast<unsigned long long*>(tail_.device()) : nullptr,
            dev(stamps_ + half),
            iteration,
            0,
            0,
            PartSize{},
            nullptr};
  }
  HaloLaunch launch(HaloStage stage, std::uint64_t iteration, bool with_flags, double timeout_s = 20,
                    PartSize parts = PartSize::automatic()) {
    HaloLaunch l;
    l.stage = stage;
    l.args = args(stage == HaloStage::unpack, iteration, with_flags);
    l.host_messages = messages_;
    l.parts = parts;
    if (stage == HaloStage::stacked) {
      l.unpack = args(true, iteration, with_flags);
      l.host_unpack_messages = messages_;
    }
    l.timeout_s = timeout_s;
    return l;
  }
  HaloStamp* unpack_stamps() { return stamps_ + kBytes.size(); }
  FlagLine* unpack_flags() { return flags_ + kBytes.size(); }
  void expect_packed(std::size_t m, std::uint64_t iteration, const unsigned char* bytes) {
    for (std::uint64_t j = 0; j < kBytes[m]; ++j)
      ASSERT_EQ(bytes[j], static_cast<unsigned char>(halo_word(iteration, 7, m, j / 8) >> (8 * (j % 8))))
          << "message " << m << " byte " << j;
  }
  unsigned char* host_buffer(std::size_t m) { return reinterpret_cast<unsigned char*>(buffers_.host()) + offset_of(m); }
  std::size_t offset_of(std::size_t m) const {
    std::size_t offset = 0;
    for (std::size_t k = 0; k < m; ++k) offset += (kBytes[k] + 127) / 128 * 128;
    return offset;
  }
  // What unpack left in the halo region (device memory), copied back to the host.
  std::vector<unsigned char> halo_region(std::size_t m) {
    PinnedBuffer back = device_->alloc_pinned(kBytes[m]);
    const auto copies = device_->make_copy_engine();
    copies->start_to_host(0, back.host(), halo_.device() + offset_of(m), kBytes[m]);
    spin_host([&] { return copies->done(0); }, 20, "copy of the halo region");
    const auto* b = reinterpret_cast<const unsigned char*>(back.host());
    return {b, b + kBytes[m]};
  }
  void unpack_with_every_flag(std::uint64_t iteration, PartSize parts) {
    const HaloShape shape = engine_->start(launch(HaloStage::unpack, iteration, true, 20, parts));
    EXPECT_EQ(shape.parts, parts);
    HostSignalOps host;
    for (std::size_t m = 0; m < kBytes.size(); ++m) host.store_release(&unpack_flags()[m].value, iteration);
    engine_->join(HaloStage::unpack);
  }

  // A stacked launch started: every send-ready flag comes and its message is
  // packed; no unpack ends before its flag; each unpacks intact once flagged.
  void stacked_packs_waits_and_unpacks(std::uint64_t iteration) {
    HostSignalOps host;
    for (std::size_t m = 0; m < kBytes.size(); ++m)
      spin_host([&] { return host.load_acquire(&flags_[m].value) >= iteration; }, 20, "send-ready flag");
    for (std::size_t m = 0; m < kBytes.size(); ++m) expect_packed(m, iteration, host_buffer(m));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    for (std::size_t m = 0; m < kBytes.size(); ++m) EXPECT_EQ(host.load_acquire(&unpack_stamps()[m].status), 0u) << m;
    for (std::size_t m = 0; m < kBytes.size(); ++m) host.store_release(&unpack_flags()[m].value, iteration);
    engine_->join(HaloStage::stacked);
    for (std::size_t m = 0; m < kBytes.size(); ++m) {
      EXPECT_EQ(unpack_stamps()[m].status, halo_status_ok) << m;
      EXPECT_EQ(unpack_stamps()[m].mismatched_words, 0u) << m;
    }
  }

  std::unique_ptr<HaloEngine> engine_;  // destroyed before the device
  PinnedBuffer buffers_, halo_, control_, tail_;
  HaloMessageArgs* messages_ = nullptr;
  unsigned long long* queue_ = nullptr;
  FlagLine* flags_ = nullptr;
  HaloStamp* stamps_ = nullptr;
};

TEST_P(HaloTest, PackWritesEveryMessageAndRaisesItsSendReadyFlag) {
  engine_->start(launch(HaloStage::pack, 3, true));
  HostSignalOps host;
  for (std::size_t m = 0; m < kBytes.size(); ++m)
    spin_host([&] { return host.load_acquire(&flags_[m].value) >= 3; }, 20, "send-ready flag");
  engine_->join(HaloStage::pack);
  for (std::size_t m = 0; m < kBytes.size(); ++m) {
    EXPECT_EQ(stamps_[m].status, halo_status_ok);
    EXPECT_LE(stamps_[m].start, stamps_[m].end);
    expect_packed(m, 3, host_buffer(m));
  }
}

TEST_P(HaloTest, UnpackWaitsForItsFlagThenFindsAnIntactPayload) {
  engine_->start(launch(HaloStage::pack, 5, false));
  engine_->join(HaloStage::pack);
  engine_->start(launch(HaloStage::unpack, 5, true));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  HostSignalOps host;
  for (std::size_t m = 0; m < kBytes.size(); ++m) EXPECT_EQ(host.load_acquire(&unpack_stamps()[m].status), 0u) << m;
  for (std::size_t m = 0; m < kBytes.size(); ++m) host.store_release(&unpack_flags()[m].value, 5);
  engine_->join(HaloStage::unpack);
  for (std::size_t m = 0; m < kBytes.size(); ++m) {
    EXPECT_EQ(unpack_stamps()[m].status, halo_status_ok) << m;
    EXPECT_EQ(unpack_stamps()[m].mismatched_words, 0u) << m;
  }
}

TEST_P(HaloTest, UnpackCountsEveryWrongWord) {
  engine_->start(launch(HaloStage::pack, 9, false));
  engine_->join(HaloStage::pack);
  host_buffer(2)[8 * 100] ^= 1;  // word 100 of the 60000 B message
  host_buffer(2)[8 * 7000 + 3] ^= 4;
  host_buffer(3)[12] ^= 1;  // the 13 B message's tail byte
  engine_->start(launch(HaloStage::unpack, 9, false));
  engine_->join(HaloStage::unpack);
  EXPECT_EQ(unpack_stamps()[0].mismatched_words, 0u);
  EXPECT_EQ(unpack_stamps()[2].mismatched_words, 2u);
  EXPECT_EQ(unpack_stamps()[3].mismatched_words, 1u);
  // A stale iteration is wrong everywhere.
  engine_->start(launch(HaloStage::unpack, 10, false));
  engine_->join(HaloStage::unpack);
  EXPECT_EQ(unpack_stamps()[1].mismatched_words, 1200u / 8);
}

TEST_P(HaloTest, UnpackGivesUpWhenNoFlagComesAndTheDeviceStaysUsable) {
  const auto t0 = std::chrono::steady_clock::now();
  engine_->start(launch(HaloStage::unpack, 11, true, 0.3));
  engine_->join(HaloStage::unpack);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10);
  for (std::size_t m = 0; m < kBytes.size(); ++m) EXPECT_EQ(unpack_stamps()[m].status, halo_status_timeout) << m;
  engine_->start(launch(HaloStage::pack, 12, true));
  engine_->join(HaloStage::pack);
  EXPECT_EQ(flags_[0].value, 12u);
}

// The thesis's single task queue: every packed message appears once, tagged
// with its iteration, and the next iteration starts the queue over without a reset.
TEST_P(HaloTest, PackAppendsEveryMessageToTheTaskQueueOncePerIteration) {
  HostSignalOps host;
  for (std::uint64_t iteration : {21, 22}) {
    HaloLaunch l = launch(HaloStage::pack, iteration, false);
    l.args = args(false, iteration, false, true);
    engine_->start(l);
    std::vector<int> seen(kBytes.size(), 0);
    for (std::size_t slot = 0; slot < kBytes.size(); ++slot) {
      unsigned long long entry = 0;
      spin_host([&] { return halo_queue_entry_of(entry = host.load_acquire(&queue_[slot]), iteration); }, 20,
                "task queue entry");
      const std::uint64_t m = entry & 0xFFFFFFull;
      ASSERT_LT(m, kBytes.size());
      ++seen[m];
      expect_packed(m, iteration, host_buffer(m));  // in the queue means packed
    }
    engine_->join(HaloStage::pack);
    EXPECT_EQ(seen, std::vector<int>(kBytes.size(), 1)) << "iteration " << iteration;
    EXPECT_EQ(flags_[0].value, 0u);  // the queue replaces the flags
  }
}

// notify-stacked, the paper's form (--parts whole): the 60000 B message is
// the whole grid's, the others one block's; one launch packs, waits for
// every unpack-ready flag and unpacks.
TEST_P(HaloTest, StackedPacksThenUnpacksWhenFlaggedWithLongMessagesOnTheWholeGrid) {
  messages_[2].whole_grid = 1;
  const HaloShape shape = engine_->start(launch(HaloStage::stacked, 31, true, 20, PartSize::whole()));
  EXPECT_GE(shape.blocks, 1);
  EXPECT_TRUE(shape.parts.is_whole());
  stacked_packs_waits_and_unpacks(31);
}

// notify-stacked in parts: the 60000 B message in 16 KiB parts, packed and
// unpacked by four teams, whole_grid ignored.
TEST_P(HaloTest, StackedInPartsPacksThenUnpacksEveryPartWhenFlagged) {
  messages_[2].whole_grid = 1;
  const HaloShape shape = engine_->start(launch(HaloStage::stacked, 33, true, 20, PartSize::of(16384)));
  EXPECT_EQ(shape.parts, PartSize::of(16384));
  stacked_packs_waits_and_unpacks(33);
  EXPECT_EQ(halo_region(2), std::vector<unsigned char>(host_buffer(2), host_buffer(2) + kBytes[2]));
}

TEST_P(HaloTest, StackedGivesUpWhenNoUnpackFlagComes) {
  messages_[2].whole_grid = 1;
  engine_->start(launch(HaloStage::stacked, 41, true, 0.3, PartSize::whole()));
  engine_->join(HaloStage::stacked);
  for (std::size_t m = 0; m < kBytes.size(); ++m) {
    EXPECT_EQ(stamps_[m].status, halo_status_ok) << m;
    EXPECT_EQ(unpack_stamps()[m].status, halo_status_timeout) << m;
  }
}

// memcpy staging: pack into device memory, then one copy per message on its own lane.
TEST_P(HaloTest, PackIntoDeviceMemoryThenCopyEachMessageToPinnedMemory) {
  PinnedBuffer staging = device_->alloc_device(buffers_.size());
  for (std::size_t m = 0; m < kBytes.size(); ++m)
    messages_[m].buffer = reinterpret_cast<unsigned char*>(staging.device()) +
                          (host_buffer(m) - reinterpret_cast<unsigned char*>(buffers_.host()));
  engine_->start(launch(HaloStage::pack, 51, false));
  engine_->join(HaloStage::pack);
  std::memset(buffers_.host(), 0, buffers_.size());
  const auto copies = device_->make_copy_engine();
  std::vector<unsigned char*> dst;
  for (std::size_t m = 0; m < kBytes.size(); ++m) {
    const std::size_t offset = reinterpret_cast<std::byte*>(messages_[m].buffer) - staging.device();
    copies->start_to_host(static_cast<int>(m), buffers_.host() + offset, staging.device() + offset, kBytes[m]);
    dst.push_back(reinterpret_cast<unsigned char*>(buffers_.host() + offset));
  }
  for (std::size_t m = 0; m < kBytes.size(); ++m) {
    spin_host([&] { return copies->done(static_cast<int>(m)); }, 20, "copy to host");
    expect_packed(m, 51, dst[m]);
  }
}

// A long message is split into parts, one team each: the parts of one
// message together write it whole, check every word, copy it into the halo
// region, and stamp it once, from the first part's start to the last one's end.
TEST_P(HaloTest, PartsOfALongMessagePackAndUnpackItWhole) {
  constexpr PartSize part = PartSize::of(4096);  // message kLong: 49 parts, the last one 3 B past a unit
  const HaloShape packed = engine_->start(launch(HaloStage::pack, 61, false, 20, part));
  engine_->join(HaloStage::pack);
  EXPECT_EQ(packed.parts, part);
  for (std::size_t m = 0; m < kBytes.size(); ++m) {
    EXPECT_EQ(stamps_[m].status, halo_status_ok) << m;
    EXPECT_LE(stamps_[m].start, stamps_[m].end) << m;
    expect_packed(m, 61, host_buffer(m));
  }
  host_buffer(kLong)[8 * 9000 + 1] ^= 2;       // a word in part 17
  host_buffer(kLong)[kBytes[kLong] - 1] ^= 1;  // the tail byte of the last part
  unpack_with_every_flag(61, part);
  for (std::size_t m = 0; m < kBytes.size(); ++m) {
    EXPECT_EQ(unpack_stamps()[m].status, halo_status_ok) << m;
    EXPECT_EQ(unpack_stamps()[m].mismatched_words, m == kLong ? 2u : 0u) << m;
  }
  const std::vector<unsigned char> halo = halo_region(kLong);
  EXPECT_TRUE(std::equal(halo.begin(), halo.end(), host_buffer(kLong))) << "the halo region is not the message";
}

// The parts leave their meeting point as they found it: the next launch
// counts its own parts (a stale count would stamp early or never).
TEST_P(HaloTest, PartsStartEveryLaunchAfresh) {
  for (std::uint64_t iteration : {71, 72, 73}) {
    engine_->start(launch(HaloStage::pack, iteration, false, 20, PartSize::of(4096)));
    engine_->join(HaloStage::pack);
    for (std::size_t m = 0; m < kBytes.size(); ++m) unpack_stamps()[m] = {};
    unpack_with_every_flag(iteration, PartSize::of(4096));
    for (std::size_t m = 0; m < kBytes.size(); ++m) {
      EXPECT_EQ(unpack_stamps()[m].status, halo_status_ok) << "iteration " << iteration << " message " << m;
      EXPECT_EQ(unpack_stamps()[m].mismatched_words, 0u) << "iteration " << iteration << " message " << m;
    }
  }
}

// auto splits only messages longer than a part; whole keeps one team per message.
TEST_P(HaloTest, AutoPartsSplitLongMessagesAndWholeKeepsOneTeamEach) {
  const HaloShape automatic = engine_->start(launch(HaloStage::pack, 81, false));
  engine_->join(HaloStage::pack);
  ASSERT_TRUE(automatic.parts.is_bytes()) << "an engine resolves auto to a size";
  EXPECT_GE(automatic.parts.bytes(), kHaloUnitBytes);
  EXPECT_LT(automatic.parts.bytes(), kBytes[kLong]) << "the long message was not split";
  EXPECT_EQ(automatic.parts.bytes() % kHaloUnitBytes, 0u);
  const HaloShape whole = engine_->start(launch(HaloStage::pack, 82, false, 20, PartSize::whole()));
  engine_->join(HaloStage::pack);
  EXPECT_TRUE(whole.parts.is_whole());
  for (std::size_t m = 0; m < kBytes.size(); ++m) expect_packed(m, 82, host_buffer(m));
}

// memcpy staging of receives: each received message is copied to device
// memory, and unpack reads that copy (a byte changed before the copy shows;
// one changed after it, in pinned memory, does not).
TEST_P(HaloTest, ReceivesCopiedToDeviceMemoryAreUnpackedFromThere) {
  engine_->start(launch(HaloStage::pack, 91, false));
  engine_->join(HaloStage::pack);
  host_buffer(2)[800] ^= 1;
  PinnedBuffer staging = device_->alloc_device(buffers_.size());
  const auto copies = device_->make_copy_engine();
  for (std::size_t m = 0; m < kBytes.size(); ++m) {
    copies->start_to_device(static_cast<int>(m), staging.device() + offset_of(m), buffers_.host() + offset_of(m),
                            kBytes[m]);
    messages_[m].buffer = reinterpret_cast<unsigned char*>(staging.device() + offset_of(m));
  }
  for (std::size_t m = 0; m < kBytes.size(); ++m)
    spin_host([&] { return copies->done(static_cast<int>(m)); }, 20, "copy to the device");
  host_buffer(kLong)[64] ^= 1;  // after the copy: unpack must not see it
  unpack_with_every_flag(91, PartSize::of(4096));
  for (std::size_t m = 0; m < kBytes.size(); ++m) {
    EXPECT_EQ(unpack_stamps()[m].status, halo_status_ok) << m;
    EXPECT_EQ(unpack_stamps()[m].mismatched_words, m == 2 ? 1u : 0u) << m;
  }
  host_buffer(kLong)[64] ^= 1;
  const std::vector<unsigned char> halo = halo_region(kLong);
  EXPECT_TRUE(std::equal(halo.begin(), halo.end(), host_buffer(kLong)));
}

std::string name_of(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

INSTANTIATE_TEST_SUITE_P(host, HaloTest, ::testing::Values("host"), name_of);
INSTANTIATE_TEST_SUITE_P(gpu, HaloTest, ::testing::Values("cuda", "hip"), name_of);

}  // namespace
}  // namespace hetprobe
