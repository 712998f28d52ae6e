// The Device suite, written once and run on every backend: the host backend
// (label-free, CI) and the GPU backends (instantiated as gpu/*, label gpu;
// skipped where the backend is not built or has no device).
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "base/errors.hpp"
#include "base/stop_request.hpp"
#include "bench/interference/payload.hpp"
#include "probes/device/device.hpp"
#include "probes/load/load_engine.hpp"
#include "probes/writer/writer_engine.hpp"
#include "tests/device/backend_under_test.hpp"

namespace hetprobe {
namespace {

using Param = std::tuple<std::string, Access>;

class DeviceTest : public BackendTest<Param> {
 protected:
  void set_up_on_device() override {
    writer_ = device_->make_writer_engine();
    access_ = std::get<1>(GetParam());
  }

  WriterTask task(std::byte* pre, std::uint64_t pre_bytes, std::byte* post, std::uint64_t post_bytes) {
    return epochs_.stamped(
        WriterTask{.access = access_, .pre = pre, .pre_bytes = pre_bytes, .post = post, .post_bytes = post_bytes});
  }

  // Waits until the running writer has completed `n` post passes.
  void wait_passes(std::uint64_t n) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (writer_->passes_completed() < n) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "writer made no progress";
      std::this_thread::yield();
    }
  }

  std::unique_ptr<WriterEngine> writer_;  // destroyed before the device
  Access access_ = Access::stream;
  TaskEpochs epochs_;
};

constexpr std::byte kCanary{0xAB};

TEST_P(DeviceTest, InfoAndShapesAreSane) {
  const DeviceInfo& info = device_->info();
  EXPECT_FALSE(info.name.empty());
  EXPECT_GT(info.timer_hz, 0);
  const WriterShape s = writer_->shape(access_);
  EXPECT_GE(s.blocks, 1);
  EXPECT_GE(s.threads_per_block, 1);
  if (access_ == Access::stream) {
    EXPECT_EQ(s.blocks, 1);
  }
  if (info.max_threads_per_block > 1) {  // a GPU
    EXPECT_EQ(writer_->shape(Access::stream).threads_per_block, info.max_threads_per_block);
    EXPECT_GE(writer_->shape(Access::stacked).blocks, info.multiprocessors);
  }
}

TEST_P(DeviceTest, PreWriteFillsExactlyThePayload) {
  for (std::uint64_t bytes : {8ull, 1000ull, 4099ull, 1ull << 20}) {
    PinnedBuffer buf = device_->alloc_pinned(bytes + 64);
    std::memset(buf.host(), 0xAB, buf.size());
    WriterTask t = task(buf.device(), bytes, nullptr, 0);
    writer_->start(t);
    const WriterOutcome o = writer_->join();
    EXPECT_EQ(o.status, WriterStatus::ok);
    EXPECT_EQ(o.passes, 0u);
    EXPECT_EQ(count_payload_mismatches(buf.host(), bytes, t.epoch), 0u) << bytes << " bytes";
    for (std::size_t j = bytes; j < buf.size(); ++j) ASSERT_EQ(buf.host()[j], kCanary) << "wrote past the end at " << j;
  }
}

TEST_P(DeviceTest, PostPhaseRunsUntilStoppedAndStaysInItsRegion) {
  const std::uint64_t n = 64 * 1024 + 24, gap = 3;  // secondary starts unaligned, as in PCB
  PinnedBuffer buf = device_->alloc_pinned(2 * n + gap + 64);
  std::memset(buf.host(), 0xAB, buf.size());
  std::byte* secondary = buf.device() + n + gap;
  WriterTask t = task(buf.device(), n, secondary, n);
  writer_->start(t);
  writer_->wait_ready(t.epoch, 20);
  // The ready flag promises the whole payload is visible.
  EXPECT_EQ(count_payload_mismatches(buf.host(), n, t.epoch), 0u);
  wait_passes(3);
  writer_->request_stop(t.epoch);
  const WriterOutcome o = writer_->join();
  EXPECT_EQ(o.status, WriterStatus::ok);
  EXPECT_GE(o.passes, 3u);
  EXPECT_GE(o.t_end_ticks, o.t_ready_ticks);
  EXPECT_GE(o.t_ready_ticks, o.t_start_ticks);
  EXPECT_EQ(count_payload_mismatches(buf.host(), n, t.epoch), 0u) << "post phase touched the MPI buffer";
  for (std::size_t j = n; j < n + gap; ++j) EXPECT_EQ(buf.host()[j], kCanary) << "gap byte " << j;
  for (std::size_t j = 2 * n + gap; j < buf.size(); ++j) EXPECT_EQ(buf.host()[j], kCanary) << "tail byte " << j;
  // The secondary holds post-phase words (bit 63 set in each aligned word).
  const std::byte* sec = buf.host() + n + gap;
  std::uint64_t w;
  std::memcpy(&w, sec + 5, 8);  // first aligned word of the secondary (offset n+gap+5 is 8-aligned)
  EXPECT_NE(w >> 63, 0u);
}

TEST_P(DeviceTest, PsbOverwritesTheSendBufferAfterReady) {
  const std::uint64_t n = 256 * 1024;
  PinnedBuffer buf = device_->alloc_pinned(n);
  WriterTask t = task(buf.device(), n, buf.device(), n);
  writer_->start(t);
  writer_->wait_ready(t.epoch, 20);
  wait_passes(2);
  writer_->request_stop(t.epoch);
  EXPECT_EQ(writer_->join().status, WriterStatus::ok);
  EXPECT_EQ(count_payload_mismatches(buf.host(), n, t.epoch), n) << "every byte should be a post-phase byte";
}

TEST_P(DeviceTest, AProcessStopRequestStopsTheRunningWriter) {
  const std::uint64_t n = 4096;
  PinnedBuffer buf = device_->alloc_pinned(2 * n);
  WriterTask t = task(buf.device(), n, buf.device() + n, n);
  t.timeout_s = 5;
  writer_->start(t);
  writer_->wait_ready(t.epoch, 20);
  hetprobe::request_stop();  // what Ctrl-C does: no writer_->request_stop, no timeout
  const WriterOutcome o = writer_->join();
  clear_stop_request();
  EXPECT_EQ(o.status, WriterStatus::ok) << "the writer ran on to its timeout";
}

TEST_P(DeviceTest, WriterGivesUpWithoutAStopAndTheDeviceStaysUsable) {
  const std::uint64_t n = 4096;
  PinnedBuffer buf = device_->alloc_pinned(2 * n);
  WriterTask t = task(buf.device(), n, buf.device() + n, n);
  t.timeout_s = 0.3;
  const auto t0 = std::chrono::steady_clock::now();
  writer_->start(t);
  const WriterOutcome o = writer_->join();  // no request_stop: only the timeout ends it
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(o.status, WriterStatus::timeout);
  EXPECT_GE(waited, 0.25);
  EXPECT_LT(waited, 10.0);
  WriterTask again = task(buf.device(), n, nullptr, 0);
  writer_->start(again);
  EXPECT_EQ(writer_->join().status, WriterStatus::ok);
  EXPECT_EQ(count_payload_mismatches(buf.host(), n, again.epoch), 0u);
}

TEST_P(DeviceTest, EpochsMustGrow) {
  PinnedBuffer buf = device_->alloc_pinned(64);
  WriterTask t = task(buf.device(), 64, nullptr, 0);
  writer_->start(t);
  writer_->join();
  EXPECT_THROW(writer_->start(t), Error);
}

TEST_P(DeviceTest, PlainWriteWritesEveryByte) {
  const std::uint64_t n = (1u << 20) + 8;
  PinnedBuffer buf = device_->alloc_pinned(n);
  std::memset(buf.host(), 0, n);
  const auto loads = device_->make_load_engine();
  EXPECT_GT(loads->time_plain(LoadKind::write, buf.device(), n), 0.0);
  for (std::uint64_t k = 0; k < n / 8; ++k) {
    std::uint64_t w;
    std::memcpy(&w, buf.host() + 8 * k, 8);
    ASSERT_EQ(w, post_word(0, k)) << "word " << k;
  }
}

TEST_P(DeviceTest, PlainReadAndCopiesLeaveTheBufferAndPollHasNoPlainPass) {
  const std::uint64_t n = 1u << 20;
  PinnedBuffer buf = device_->alloc_pinned(n);
  std::memset(buf.host(), 0x5A, n);
  const auto loads = device_->make_load_engine();
  for (LoadKind k : {LoadKind::read, LoadKind::copy_h2d}) {
    EXPECT_GT(loads->time_plain(k, buf.device(), n), 0.0) << to_string(k);
    for (std::uint64_t j = 0; j < n; ++j)
      ASSERT_EQ(buf.host()[j], std::byte{0x5A}) << to_string(k) << " changed byte " << j;
  }
  EXPECT_GT(loads->time_plain(LoadKind::copy_d2h, buf.device(), n), 0.0);
  EXPECT_THROW(loads->time_plain(LoadKind::poll, buf.device(), n), Error);
}

TEST_P(DeviceTest, PinningTooMuchIsAUsageError) {
  try {
    device_->alloc_pinned(std::size_t{1} << 60);
    FAIL() << "pinned 2^60 bytes";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
  }
}

std::string name_of(const ::testing::TestParamInfo<Param>& p) {
  return std::get<0>(p.param) + "_" + to_string(std::get<1>(p.param));
}

INSTANTIATE_TEST_SUITE_P(host, DeviceTest,
                         ::testing::Combine(::testing::Values("host"),
                                            ::testing::Values(Access::stream, Access::stacked)),
                         name_of);
INSTANTIATE_TEST_SUITE_P(gpu, DeviceTest,
                         ::testing::Combine(::testing::Values("cuda", "hip"),
                                            ::testing::Values(Access::stream, Access::stacked)),
                         name_of);

}  // namespace
}  // namespace hetprobe
