// The halo stages (halo_protocol.hpp), written once and run on every
// backend: host here (CI), cuda/hip under label gpu.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "backend_under_test.hpp"
#include "hetprobe/host_signal_ops.hpp"
#include "hetprobe/host_spin.hpp"

namespace hetprobe {
namespace {

// Sizes as a cube layout has them (24 B cells) plus one that is not a multiple of 8.
const std::vector<std::uint64_t> kBytes = {24, 1200, 60000, 13};

class HaloTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    std::string why_not;
    device_ = open_backend_under_test(GetParam(), why_not);
    if (!device_) GTEST_SKIP() << why_not;
    const std::size_t n = kBytes.size();
    std::size_t total = 0;
    for (auto b : kBytes) total += (b + 127) / 128 * 128;
    buffers_ = device_->alloc_pinned(total);
    halo_ = device_->alloc_device(total);
    control_ = device_->alloc_pinned(n * (sizeof(HaloMessageArgs) + sizeof(FlagLine) + sizeof(HaloStamp)) + 4096);
    std::memset(control_.host(), 0, control_.size());
    messages_ = reinterpret_cast<HaloMessageArgs*>(control_.host());
    flags_ = reinterpret_cast<FlagLine*>(control_.host() + 2048);
    stamps_ = reinterpret_cast<HaloStamp*>(reinterpret_cast<std::byte*>(flags_) + n * sizeof(FlagLine));
    std::size_t offset = 0;
    for (std::size_t m = 0; m < n; ++m) {
      messages_[m] = {reinterpret_cast<unsigned char*>(buffers_.device() + offset),
                      reinterpret_cast<unsigned char*>(halo_.device() + offset), kBytes[m], 7, m};
      offset += (kBytes[m] + 127) / 128 * 128;
    }
  }

  HaloLaunch launch(HaloStage stage, std::uint64_t iteration, bool with_flags, double timeout_s = 20) {
    HaloLaunch l;
    l.stage = stage;
    l.args = {reinterpret_cast<const HaloMessageArgs*>(control_.device_at(control_.host())), kBytes.size(),
              with_flags ? reinterpret_cast<FlagLine*>(control_.device_at(reinterpret_cast<std::byte*>(flags_)))
                         : nullptr,
              reinterpret_cast<HaloStamp*>(control_.device_at(reinterpret_cast<std::byte*>(stamps_))), iteration, 0};
    l.timeout_s = timeout_s;
    return l;
  }
  unsigned char* host_buffer(std::size_t m) {
    return reinterpret_cast<unsigned char*>(buffers_.host()) +
           (reinterpret_cast<std::byte*>(messages_[m].buffer) - buffers_.device());
  }

  std::unique_ptr<Device> device_;
  PinnedBuffer buffers_, halo_, control_;
  HaloMessageArgs* messages_ = nullptr;
  FlagLine* flags_ = nullptr;
  HaloStamp* stamps_ = nullptr;
};

TEST_P(HaloTest, PackWritesEveryMessageAndRaisesItsSendReadyFlag) {
  device_->start_halo(launch(HaloStage::pack, 3, true));
  HostSignalOps host;
  for (std::size_t m = 0; m < kBytes.size(); ++m)
    spin_host([&] { return host.load_acquire(&flags_[m].value) >= 3; }, 20, "send-ready flag");
  device_->join_halo(HaloStage::pack);
  for (std::size_t m = 0; m < kBytes.size(); ++m) {
    EXPECT_EQ(stamps_[m].status, halo_status_ok);
    EXPECT_LE(stamps_[m].start, stamps_[m].end);
    for (std::uint64_t j = 0; j < kBytes[m]; ++j)
      ASSERT_EQ(host_buffer(m)[j], static_cast<unsigned char>(halo_word(3, 7, m, j / 8) >> (8 * (j % 8))))
          << "message " << m << " byte " << j;
  }
}

TEST_P(HaloTest, UnpackWaitsForItsFlagThenFindsAnIntactPayload) {
  device_->start_halo(launch(HaloStage::pack, 5, false));
  device_->join_halo(HaloStage::pack);
  std::memset(static_cast<void*>(stamps_), 0, kBytes.size() * sizeof(HaloStamp));
  device_->start_halo(launch(HaloStage::unpack, 5, true));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  HostSignalOps host;
  for (std::size_t m = 0; m < kBytes.size(); ++m) EXPECT_EQ(host.load_acquire(&stamps_[m].status), 0u) << m;
  for (std::size_t m = 0; m < kBytes.size(); ++m) host.store_release(&flags_[m].value, 5);
  device_->join_halo(HaloStage::unpack);
  for (std::size_t m = 0; m < kBytes.size(); ++m) {
    EXPECT_EQ(stamps_[m].status, halo_status_ok) << m;
    EXPECT_EQ(stamps_[m].mismatched_words, 0u) << m;
  }
}

TEST_P(HaloTest, UnpackCountsEveryWrongWord) {
  device_->start_halo(launch(HaloStage::pack, 9, false));
  device_->join_halo(HaloStage::pack);
  host_buffer(2)[8 * 100] ^= 1;  // word 100 of the 60000 B message
  host_buffer(2)[8 * 7000 + 3] ^= 4;
  host_buffer(3)[12] ^= 1;       // the 13 B message's tail byte
  device_->start_halo(launch(HaloStage::unpack, 9, false));
  device_->join_halo(HaloStage::unpack);
  EXPECT_EQ(stamps_[0].mismatched_words, 0u);
  EXPECT_EQ(stamps_[2].mismatched_words, 2u);
  EXPECT_EQ(stamps_[3].mismatched_words, 1u);
  // A stale iteration is wrong everywhere.
  device_->start_halo(launch(HaloStage::unpack, 10, false));
  device_->join_halo(HaloStage::unpack);
  EXPECT_EQ(stamps_[1].mismatched_words, 1200u / 8);
}

TEST_P(HaloTest, UnpackGivesUpWhenNoFlagComesAndTheDeviceStaysUsable) {
  const auto t0 = std::chrono::steady_clock::now();
  device_->start_halo(launch(HaloStage::unpack, 11, true, 0.3));
  device_->join_halo(HaloStage::unpack);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10);
  for (std::size_t m = 0; m < kBytes.size(); ++m) EXPECT_EQ(stamps_[m].status, halo_status_timeout) << m;
  device_->start_halo(launch(HaloStage::pack, 12, true));
  device_->join_halo(HaloStage::pack);
  EXPECT_EQ(flags_[0].value, 12u);
}

std::string name_of(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

INSTANTIATE_TEST_SUITE_P(host, HaloTest, ::testing::Values("host"), name_of);
INSTANTIATE_TEST_SUITE_P(gpu, HaloTest, ::testing::Values("cuda", "hip"), name_of);

}  // namespace
}  // namespace hetprobe
