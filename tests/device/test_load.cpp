// The load engine suite, written once and run on every backend (host in CI,
// cuda/hip under the label gpu): every kind moves data where it should and
// nowhere else, stamps its progress, keeps a set rate, stops when asked and
// gives up by itself.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "base/errors.hpp"
#include "base/stop_request.hpp"
#include "probes/load/load_engine.hpp"
#include "tests/device/backend_under_test.hpp"

namespace hetprobe {
namespace {

using Param = std::tuple<std::string, LoadKind, Access>;
constexpr unsigned char kCanary = 0xAB;
constexpr std::uint64_t kMargin = 4096;

class LoadTest : public BackendTest<Param> {
 protected:
  void set_up_on_device() override {
    kind_ = std::get<1>(GetParam());
    access_ = std::get<2>(GetParam());
    engine_ = device_->make_load_engine();
  }
  void TearDown() override { engine_.reset(); }

  // A region `bytes` long that starts 5 bytes past a 16-byte boundary (as a
  // PCB secondary after an odd-sized message does), with canaries around it.
  std::byte* region(std::uint64_t bytes) {
    buf_ = device_->alloc_pinned(bytes + 2 * kMargin);
    std::memset(buf_.host(), kCanary, buf_.size());
    return buf_.device() + kMargin + 5;
  }
  const unsigned char* host(std::uint64_t offset) const {
    return reinterpret_cast<const unsigned char*>(buf_.host()) + kMargin + 5 + offset;
  }

  LoadTask task(std::byte* target, std::uint64_t bytes, double rate_gbs = 0) {
    return epochs_.stamped(LoadTask{.kind = kind_,
                                    .access = access_,
                                    .target = target,
                                    .target_bytes = bytes,
                                    .rate_gbs = rate_gbs,
                                    .helper_cpus = {}});  // its threads anywhere
  }

  // Runs `t` for about `seconds` (and until it has moved `at_least` bytes).
  LoadOutcome run(const LoadTask& t, double seconds, std::uint64_t at_least = 0) {
    engine_->start(t);
    engine_->wait_ready(20);
    const auto t0 = std::chrono::steady_clock::now();
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    LoadOutcome o;
    for (;;) {
      engine_->request_stop();
      o = engine_->join();
      if (o.bytes >= at_least || std::chrono::steady_clock::now() - t0 > std::chrono::seconds(10)) return o;
      LoadTask again = t;  // not enough yet (a slow machine): run again, longer
      again.epoch = epochs_.next();
      engine_->start(again);
      engine_->wait_ready(20);
      std::this_thread::sleep_for(std::chrono::duration<double>(4 * seconds));
    }
  }

  double gbs(const LoadOutcome& o) const {
    return static_cast<double>(o.bytes) /
           (static_cast<double>(o.t_end_ticks - o.t_ready_ticks) / device_->info().timer_hz) * 1e-9;
  }

  std::unique_ptr<LoadEngine> engine_;
  PinnedBuffer buf_;
  LoadKind kind_ = LoadKind::write;
  Access access_ = Access::stream;
  TaskEpochs epochs_;
};

TEST_P(LoadTest, MovesBytesOnlyInItsRegion) {
  const std::uint64_t n = 64 * 1024 + 3;
  std::byte* target = region(n);
  if (kind_ == LoadKind::copy_h2d || kind_ == LoadKind::read) {
    std::memset(buf_.host() + kMargin + 5, 0x11, n);  // what they load must stay as it was
  }
  const LoadShape shape = engine_->shape(kind_, access_, n);
  const LoadOutcome o = run(task(target, n), 0.02, 3 * n);
  EXPECT_GE(o.bytes, 3 * n);
  EXPECT_EQ(o.workers_started, static_cast<std::uint64_t>(shape.workers));
  EXPECT_GE(o.stamps, 2u);
  // Its own traffic is counted: a reporter reads the host's flags (2 a look);
  // the copy engine's feeder reads them in host memory, from the host.
  if (shape.engine == LoadEngineKind::copy_engine) EXPECT_EQ(o.control_reads, 0u);
  else EXPECT_GE(o.control_reads, 2u);
  EXPECT_LE(o.t_start_ticks, o.t_ready_ticks);
  EXPECT_LE(o.t_ready_ticks, o.t_end_ticks);
  for (std::uint64_t j = 0; j < kMargin + 5; ++j)
    ASSERT_EQ(reinterpret_cast<const unsigned char*>(buf_.host())[j], kCanary) << "before the region, byte " << j;
  for (std::uint64_t j = n; j < n + kMargin - 5; ++j) ASSERT_EQ(*host(j), kCanary) << "after the region, byte " << j;
  for (std::uint64_t j = 0; j < n; ++j) {
    const unsigned char b = *host(j);
    if (kind_ == LoadKind::write || kind_ == LoadKind::copy_d2h) {
      ASSERT_NE(b & 0x80, 0) << "byte " << j << " of the region was not written";
    } else if (kind_ == LoadKind::poll) {
      ASSERT_EQ(b, kCanary) << "a poll wrote byte " << j;
    } else {
      ASSERT_EQ(b, 0x11) << "a " << to_string(kind_) << " load changed byte " << j;
    }
  }
}

TEST_P(LoadTest, StampsPlaceTheBytesOnTheDeviceTimer) {
  const std::uint64_t n = 1 << 20;
  const LoadOutcome o = run(task(region(n), n), 0.05, 2 * n);
  const auto all = engine_->bytes_between(o.t_ready_ticks, o.t_end_ticks);
  ASSERT_TRUE(all.has_value());
  EXPECT_GT(*all, 0);
  EXPECT_LE(*all, static_cast<double>(o.bytes));
  // Halves add up to the whole, and a window outside the run is unknown.
  const std::uint64_t mid = o.t_ready_ticks + (o.t_end_ticks - o.t_ready_ticks) / 2;
  const auto first = engine_->bytes_between(o.t_ready_ticks, mid), second = engine_->bytes_between(mid, o.t_end_ticks);
  ASSERT_TRUE(first && second);
  EXPECT_NEAR(*first + *second, *all, 1e-6 * *all + 1);
  EXPECT_FALSE(engine_->bytes_between(o.t_end_ticks, o.t_end_ticks + 1'000'000'000ull).has_value());
  EXPECT_FALSE(engine_->bytes_between(o.t_ready_ticks - 1'000'000'000ull, o.t_ready_ticks).has_value());
}

TEST_P(LoadTest, KeepsASetRate) {
  const std::uint64_t n = 4 << 20;
  std::byte* target = region(n);
  const double full = gbs(run(task(target, n), 0.1, n));
  ASSERT_GT(full, 0);
  const double asked = 0.25 * full;
  const LoadOutcome paced = run(task(target, n, asked), 0.2);
  // Pacing never runs faster than asked. CPU threads that share a busy machine's cores can fall
  // behind it, so only a GPU must also reach the rate.
  EXPECT_LE(gbs(paced), 1.1 * asked) << to_string(kind_) << ": full rate " << full << " GB/s";
  if (std::get<0>(GetParam()) != "host") {
    EXPECT_GE(gbs(paced), 0.9 * asked) << to_string(kind_) << ": full rate " << full << " GB/s";
  }
}

TEST_P(LoadTest, AProcessStopRequestStopsTheRunningLoad) {
  const std::uint64_t n = 64 * 1024;
  LoadTask t = task(region(n), n);
  t.timeout_s = 5;
  engine_->start(t);
  engine_->wait_ready(20);
  hetprobe::request_stop();  // what Ctrl-C does: no engine_->request_stop, no timeout
  try {
    const LoadOutcome o = engine_->join();
    clear_stop_request();
    EXPECT_FALSE(o.timed_out);
  } catch (const Error& e) {
    clear_stop_request();
    FAIL() << "the load ran on to its timeout: " << e.what();
  }
}

TEST_P(LoadTest, GivesUpWithoutAStopAndStaysUsable) {
  const std::uint64_t n = 64 * 1024;
  std::byte* target = region(n);
  LoadTask t = task(target, n);
  t.timeout_s = 0.3;
  const auto t0 = std::chrono::steady_clock::now();
  engine_->start(t);
  try {
    engine_->join();  // no stop: only the timeout ends it
    FAIL() << "the load did not report its timeout";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::timeout) << e.what();
  }
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(waited, 0.25);
  EXPECT_LT(waited, 10.0);
  EXPECT_GT(run(task(target, n), 0.01, 1).bytes, 0u);
}

std::string name_of(const ::testing::TestParamInfo<Param>& p) {
  std::string kind = to_string(std::get<1>(p.param));
  for (char& c : kind)
    if (c == '-') c = '_';
  return std::get<0>(p.param) + "_" + kind + "_" + to_string(std::get<2>(p.param));
}

const auto kKinds = ::testing::Values(LoadKind::write, LoadKind::read, LoadKind::poll, LoadKind::copy_d2h,
                                      LoadKind::copy_h2d);
INSTANTIATE_TEST_SUITE_P(host, LoadTest,
                         ::testing::Combine(::testing::Values("host"), kKinds,
                                            ::testing::Values(Access::stream, Access::stacked)),
                         name_of);
INSTANTIATE_TEST_SUITE_P(gpu, LoadTest,
                         ::testing::Combine(::testing::Values("cuda", "hip"), kKinds,
                                            ::testing::Values(Access::stream, Access::stacked)),
                         name_of);

}  // namespace
}  // namespace hetprobe
