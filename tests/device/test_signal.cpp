// The signal tasks behind the notify and clock probes, written once and run
// on every backend and memory order: host here (CI), cuda/hip under label gpu.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "base/errors.hpp"
#include "base/stop_request.hpp"
#include "bench/notify/notify.hpp"
#include "bench/protocols/clock_sync.hpp"
#include "probes/device/host_spin.hpp"
#include "probes/launch/launch_engine.hpp"
#include "probes/signal/host_signal_ops.hpp"
#include "probes/signal/signal_engine.hpp"
#include "tests/device/backend_under_test.hpp"

namespace hetprobe {

// So test names and failures show "acqrel", not a 4-byte object.
inline void PrintTo(MemoryOrder order, std::ostream* os) { *os << to_string(order); }

namespace {

using Param = std::tuple<std::string, MemoryOrder>;

class SignalTest : public BackendTest<Param> {
 protected:
  void set_up_on_device() override {
    signals_ = device_->make_signal_engine();
    order_ = std::get<1>(GetParam());
    flags_ = device_->alloc_flags(FlagPlacement::pinned, HostCoherence::default_kind, 4096);
    std::memset(flags_.host(), 0, flags_.size());
  }
  unsigned long long* host_flag(int line) { return reinterpret_cast<unsigned long long*>(flags_.host() + 128 * line); }
  unsigned long long* dev_flag(int line) { return reinterpret_cast<unsigned long long*>(flags_.device() + 128 * line); }
  SignalTask task(SignalKind kind, std::uint64_t count, double timeout_s = 20) {
    SignalTask t;
    t.kind = kind;
    t.order = order_;
    t.to_device = dev_flag(0);
    t.to_host = dev_flag(1);
    t.stop = dev_flag(2);
    t.count = count;
    t.first = 1;
    t.timeout_s = timeout_s;
    return t;
  }

  // `n` slots for a task's 64-bit samples, every byte `fill` first.
  PinnedBuffer sample_slots(int n, int fill) {
    PinnedBuffer slots = device_->alloc_pinned(n * sizeof(std::uint64_t));
    std::memset(slots.host(), fill, slots.size());
    return slots;
  }
  // A task of `n` exchanges that writes a sample of each into `slots`.
  SignalTask sampling_task(SignalKind kind, int n, const PinnedBuffer& slots) {
    SignalTask t = task(kind, n);
    t.samples = reinterpret_cast<unsigned long long*>(slots.device());
    return t;
  }
  static const std::uint64_t* samples_in(const PinnedBuffer& slots) {
    return reinterpret_cast<const std::uint64_t*>(slots.host());
  }

  std::unique_ptr<SignalEngine> signals_;  // destroyed before the device
  MemoryOrder order_ = MemoryOrder::volatile_access;
  PinnedBuffer flags_;
};

TEST_P(SignalTest, TimerTickIsMeasured) {
  EXPECT_GT(device_->info().timer_tick_ns, 0);
  EXPECT_LT(device_->info().timer_tick_ns, 10000) << "a timer that steps by more than 10 us";
}

TEST_P(SignalTest, EchoAnswersEveryExchangeInOrder) {
  constexpr int n = 200;
  const SignalTaskScope task_scope = signals_->start(task(SignalKind::echo, n));
  HostSignalOps h;
  for (unsigned long long seq = 1; seq <= n; ++seq) {
    EXPECT_EQ(h.load_acquire(host_flag(1)), seq - 1) << "the echo ran ahead of the host";
    h.store_release(host_flag(0), seq);
    spin_host([&] { return h.load_acquire(host_flag(1)) >= seq; }, 20, "echo");
  }
  const SignalOutcome out = signals_->join();
  EXPECT_FALSE(out.timed_out);
  EXPECT_EQ(out.completed, static_cast<std::uint64_t>(n));
  EXPECT_GE(out.t_end_ticks, out.t_start_ticks);
}

TEST_P(SignalTest, InitiatorTimesEveryRoundTripOnTheDevice) {
  constexpr int n = 100;
  const PinnedBuffer samples = sample_slots(n, 0);
  SignalTask t = sampling_task(SignalKind::initiate, n, samples);
  const SignalTaskScope task_scope = signals_->start(t);
  HostSignalOps h;
  for (unsigned long long seq = 1; seq <= n; ++seq) {
    spin_host([&] { return h.load_acquire(host_flag(1)) >= seq; }, 20, "ping");
    h.store_release(host_flag(0), seq);
  }
  const SignalOutcome out = signals_->join();
  ASSERT_FALSE(out.timed_out);
  EXPECT_EQ(out.completed, static_cast<std::uint64_t>(n));
  const std::uint64_t* v = samples_in(samples);
  for (int i = 0; i < n; ++i) {
    EXPECT_GT(v[i], 0u) << "round trip " << i << " took no device time";
    EXPECT_LE(v[i], out.t_end_ticks - out.t_start_ticks);
  }
}

TEST_P(SignalTest, AWaitWithoutAnswerTimesOutOnTheDevice) {
  const auto t0 = std::chrono::steady_clock::now();
  const SignalTaskScope task_scope = signals_->start(task(SignalKind::echo, 5, 0.3));
  const SignalOutcome out = signals_->join();
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(out.timed_out);
  EXPECT_EQ(out.completed, 0u);
  EXPECT_GE(waited, 0.25);
  EXPECT_LT(waited, 10) << "the device thread did not give up";
  // The device is still usable afterwards.
  const SignalTaskScope again = signals_->start(task(SignalKind::overhead, 10));
  EXPECT_FALSE(signals_->join().timed_out);
}

// Each wait is bounded on its own: a task that outlasts its timeout in all,
// while every answer comes well within it, is not cut short (on a busy
// machine the host answered every echo in time, and the task still gave up).
TEST_P(SignalTest, EachWaitHasItsOwnTimeoutNotTheWholeTask) {
  constexpr int n = 5;
  const SignalTaskScope task_scope = signals_->start(task(SignalKind::echo, n, 0.2));
  HostSignalOps h;
  for (unsigned long long seq = 1; seq <= n; ++seq) {
    std::this_thread::sleep_for(std::chrono::milliseconds(60));  // 5 x 60 ms: more than 0.2 s in all
    h.store_release(host_flag(0), seq);
    spin_host([&] { return h.load_acquire(host_flag(1)) >= seq; }, 20, "echo");
  }
  const SignalOutcome out = signals_->join();
  EXPECT_FALSE(out.timed_out);
  EXPECT_EQ(out.completed, static_cast<std::uint64_t>(n));
}

// A stop request (Ctrl-C) ends the device's waits however long their
// timeout: the host backend's threads see it, and a GPU kernel is told
// through its abandon flag while the host joins it.
TEST_P(SignalTest, AStopRequestEndsTheDevicesWait) {
  if (order_ != MemoryOrder::volatile_access) GTEST_SKIP() << "the wait does not depend on the order";
  const SignalTaskScope task_scope = signals_->start(task(SignalKind::echo, 5, 3600));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));  // into the long part of the wait
  request_stop();
  const SignalOutcome out = signals_->join();
  clear_stop_request();
  EXPECT_TRUE(out.timed_out) << "the wait gave up, as a timeout does";
  EXPECT_EQ(out.completed, 0u);
}

// A task's scope left without a join (an error unwinding the probe) ends the
// task's wait at once, rather than after its timeout of an hour, and the
// engine takes the next task.
TEST_P(SignalTest, LeavingTheScopeEndsAWaitingTask) {
  if (order_ != MemoryOrder::volatile_access) GTEST_SKIP() << "the wait does not depend on the order";
  const auto t0 = std::chrono::steady_clock::now();
  {
    const SignalTaskScope task_scope = signals_->start(task(SignalKind::echo, 5, 3600));
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // into the long part of the wait
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(60))
      << "leaving the scope waited for the task's timeout";
  const SignalTaskScope next = signals_->start(task(SignalKind::overhead, 10));
  EXPECT_FALSE(signals_->join().timed_out);
}

// An exception thrown while the device echoes on flags of its own scope:
// the task ends before the flags are freed (the sanitizer build reports a
// store to freed memory where it does not).
TEST_P(SignalTest, AnExceptionEndsTheTaskBeforeItsFlagsAreFreed) {
  if (order_ != MemoryOrder::volatile_access) GTEST_SKIP() << "the wait does not depend on the order";
  HostSignalOps h;
  EXPECT_THROW(
      {
        PinnedBuffer own = device_->alloc_flags(FlagPlacement::pinned, HostCoherence::default_kind, 4096);
        std::memset(own.host(), 0, own.size());
        SignalTask t = task(SignalKind::echo, 1000, 3600);
        t.to_device = reinterpret_cast<unsigned long long*>(own.device());
        t.to_host = reinterpret_cast<unsigned long long*>(own.device() + 128);
        const SignalTaskScope task_scope = signals_->start(t);
        auto* to_device = reinterpret_cast<unsigned long long*>(own.host());
        auto* to_host = reinterpret_cast<unsigned long long*>(own.host() + 128);
        h.store_release(to_device, 1);
        spin_host([&] { return h.load_acquire(to_host) >= 1; }, 20, "echo");
        h.store_release(to_device, 2);  // the echo is answering this one as we unwind
        throw std::runtime_error("unwinding");
      },
      std::runtime_error);
  const SignalTaskScope next = signals_->start(task(SignalKind::overhead, 10));
  EXPECT_FALSE(signals_->join().timed_out) << "the engine is usable after the unwinding";
}

TEST_P(SignalTest, OverheadDoesEveryReadAndWrite) {
  constexpr int n = 500;
  const SignalTaskScope task_scope = signals_->start(task(SignalKind::overhead, n));
  const SignalOutcome out = signals_->join();
  EXPECT_FALSE(out.timed_out);
  EXPECT_EQ(out.completed, static_cast<std::uint64_t>(n));
  EXPECT_EQ(*host_flag(0), static_cast<unsigned long long>(n)) << "each pair adds one to the flag";
}

// The CPU's handover pair: each time the host asks, the device thread writes
// the target, then (release) its written flag; the host must see the target.
TEST_P(SignalTest, HandoverWriteStoresTheTargetBeforeItsWrittenFlag) {
  constexpr int n = 200;
  SignalTask t = task(SignalKind::handover_write, n);
  t.target = dev_flag(8);
  const SignalTaskScope task_scope = signals_->start(t);
  HostSignalOps h;
  int missed = 0;
  for (unsigned long long seq = 1; seq <= n; ++seq) {
    h.store_release(host_flag(0), seq);
    spin_host([&] { return h.load_acquire(host_flag(1)) >= seq; }, 20, "the device's write");
    const unsigned long long seen = h.load_volatile(host_flag(8));
    missed += seen < 2 * seq;
    h.store_volatile(host_flag(8), seen + 1);
  }
  const SignalOutcome out = signals_->join();
  EXPECT_FALSE(out.timed_out);
  EXPECT_EQ(out.completed, static_cast<std::uint64_t>(n));
  EXPECT_EQ(missed, 0) << "the written flag came before the target it announces";
  EXPECT_EQ(*host_flag(8), 2ull * n + 1);
}

// The GPU's handover pair: the host writes the target, then the go; the
// device thread times one load + store of it and acknowledges.
TEST_P(SignalTest, HandoverPairReadsAndWritesTheHostsTargetOnce) {
  constexpr int n = 200;
  const PinnedBuffer samples = sample_slots(n, 0xff);
  SignalTask t = sampling_task(SignalKind::handover_pair, n, samples);
  t.target = dev_flag(8);
  const SignalTaskScope task_scope = signals_->start(t);
  HostSignalOps h;
  for (unsigned long long seq = 1; seq <= n; ++seq) {
    h.store_volatile(host_flag(8), 2 * seq);
    h.store_release(host_flag(0), seq);
    spin_host([&] { return h.load_acquire(host_flag(1)) >= seq; }, 20, "the device's pair");
    EXPECT_EQ(h.load_volatile(host_flag(8)), 2 * seq + 1) << "the pair's store is the host's value + 1";
  }
  const SignalOutcome out = signals_->join();
  ASSERT_FALSE(out.timed_out);
  EXPECT_EQ(out.completed, static_cast<std::uint64_t>(n));
  EXPECT_EQ(out.value, 0u) << "pairs that missed the host's write";
  const std::uint64_t* v = samples_in(samples);
  for (int i = 0; i < n; ++i) EXPECT_LE(v[i], out.t_end_ticks - out.t_start_ticks) << "pair " << i;
}

TEST_P(SignalTest, TimerCostFillsEverySample) {
  constexpr int n = 300;
  const PinnedBuffer samples = sample_slots(n, 0xff);
  SignalTask t = sampling_task(SignalKind::timer_cost, n, samples);
  const SignalTaskScope task_scope = signals_->start(t);
  const SignalOutcome out = signals_->join();
  ASSERT_FALSE(out.timed_out);
  EXPECT_EQ(out.completed, static_cast<std::uint64_t>(n));
  const std::uint64_t* v = samples_in(samples);
  for (int i = 0; i < n; ++i) EXPECT_LE(v[i], out.t_end_ticks - out.t_start_ticks) << "read pair " << i;
}

// notify's handover part: one record per side, the pair's median less the
// timer's median as the number, every pair kept, none that missed a write.
TEST_P(SignalTest, NotifyHandoverRecordsBothSidesBeyondTheirTimer) {
  NotifyConfig config;
  config.parts = {NotifyPart::handover};
  config.orders = {{order_, order_}};
  config.handover_samples = 150;
  config.warmup = 10;
  config.timeout_s = 20;
  const HostClock clock = HostClock::create(ClockChoice::auto_pick);
  std::vector<Json> records;
  run_notify(config, *device_, clock, [&](const Json& r) { records.push_back(r); });
  ASSERT_EQ(records.size(), 2u);
  for (const Json& r : records) {
    const std::string side = r["side"];
    SCOPED_TRACE(side);
    EXPECT_EQ(r["record"], "handover");
    EXPECT_EQ(r["timed_by"], side == "cpu" ? "host" : "device");
    EXPECT_EQ(r["setup"]["cpu_order"], to_string(order_));
    EXPECT_EQ(r["pairs"], 150);
    EXPECT_EQ(r["samples"]["values"].size(), 150u);
    EXPECT_EQ(r["pair_ns"]["n"], 150);
    EXPECT_EQ(r["timer_cost_ns"]["n"], 150);
    EXPECT_EQ(r["missed_writes"], 0);
    const double beyond = r["pair_beyond_timer_ns"];
    EXPECT_DOUBLE_EQ(beyond, r["pair_ns"]["median"].get<double>() - r["timer_cost_ns"]["median"].get<double>());
    EXPECT_EQ(r["below_timer_tick"], beyond < r["timer_tick_ns"].get<double>());
  }
  EXPECT_EQ(records[0]["side"], "cpu");
  EXPECT_EQ(records[0]["timer"], clock.source());
  EXPECT_EQ(records[1]["timer"], "device");
}

TEST_P(SignalTest, PollerRunsUntilStopped) {
  const SignalTaskScope task_scope = signals_->start(task(SignalKind::poll, 0));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  HostSignalOps h;
  h.store_release(host_flag(2), 1);
  const SignalOutcome out = signals_->join();
  EXPECT_FALSE(out.timed_out);
  EXPECT_GT(out.value, 0u) << "the poller made no loads";
}

TEST_P(SignalTest, ClockSamplesBracketTheHostStamp) {
  const HostClock clock = HostClock::create(ClockChoice::auto_pick);
  const auto batch = sync_batch(*device_, *signals_, clock, 50, order_, 20);
  ASSERT_EQ(batch.size(), 50u);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    EXPECT_GT(batch[i].device_start, 0u);
    EXPECT_GE(batch[i].device_end, batch[i].device_start);
    if (i > 0) {
      EXPECT_GT(batch[i].device_start, batch[i - 1].device_end) << "samples out of order";
      EXPECT_GT(batch[i].host_ns, batch[i - 1].host_ns);
    }
  }
}

TEST_P(SignalTest, ClockKeepsTheFlagPageWithTheShortestRoundTrips) {
  const HostClock clock = HostClock::create(ClockChoice::auto_pick);
  const SyncFlagChoice c = choose_sync_flags(*device_, *signals_, clock, 3, order_, 20);
  ASSERT_EQ(c.p10_half_ns.size(), 3u);
  for (double ns : c.p10_half_ns) EXPECT_GE(ns, 0);
  EXPECT_EQ(c.chosen, static_cast<std::size_t>(std::min_element(c.p10_half_ns.begin(), c.p10_half_ns.end()) -
                                               c.p10_half_ns.begin()));
  ASSERT_NE(c.flags.host(), nullptr);
  EXPECT_EQ(c.flags.size(), kSyncFlagPageBytes);
  EXPECT_EQ(c.to_json()["tried"], 3);
  // The kept page still carries a sync.
  EXPECT_EQ(sync_batch(*device_, *signals_, clock, 20, order_, 20, &c.flags).size(), 20u);
}

TEST_P(SignalTest, FlagRoundTripGivesOneSamplePerExchange) {
  const HostClock clock = HostClock::create(ClockChoice::auto_pick);
  const auto ns = cpu_gpu_roundtrip_ns(*device_, clock, {order_, order_}, 300, 10, 20);
  ASSERT_EQ(ns.size(), 300u);
  for (double x : ns) EXPECT_GT(x, 0);
}

TEST_P(SignalTest, LaunchMechanismsMeasureOrSayWhyNot) {
  if (order_ != MemoryOrder::volatile_access) GTEST_SKIP() << "mechanisms do not depend on the order parameter";
  const HostClock clock = HostClock::create(ClockChoice::auto_pick);
  const auto& can = device_->info().launch_mechanisms;
  if (can.empty()) {
    try {
      (void)device_->make_launch_engine();
      ADD_FAILURE() << "a launch engine on a device that lists no launch mechanisms";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::unsupported) << e.what();
    }
    return;
  }
  const auto launches = device_->make_launch_engine();
  for (LaunchMechanism m : can) {
    const MechanismSamples out = launches->time(m, {50, 5, 20, &clock});
    if (!out.skipped.empty()) {
      EXPECT_TRUE(out.ticks.empty()) << to_string(m);
      continue;
    }
    ASSERT_EQ(out.ticks.size(), 50u) << to_string(m);
    ASSERT_EQ(out.go_call_ticks.size(), 50u) << to_string(m);
    for (std::size_t i = 0; i < out.ticks.size(); ++i) EXPECT_GE(out.ticks[i], out.go_call_ticks[i]) << to_string(m);
  }
}

// The capabilities DeviceInfo lists are what alloc_flags does: a listed
// placement allocates, any other is an unsupported Error.
TEST_P(SignalTest, FlagMemoryMatchesTheListedCapabilities) {
  if (order_ != MemoryOrder::volatile_access) GTEST_SKIP() << "memory does not depend on the order";
  const DeviceInfo& info = device_->info();
  EXPECT_TRUE(info.has_flag_placement(FlagPlacement::pinned));
  for (auto [placement, coherence] : {std::pair{FlagPlacement::pinned, HostCoherence::default_kind},
                                      {FlagPlacement::managed, HostCoherence::default_kind},
                                      {FlagPlacement::device, HostCoherence::default_kind},
                                      {FlagPlacement::pinned, HostCoherence::coherent}}) {
    const bool listed = info.has_flag_placement(placement) &&
                        (coherence == HostCoherence::default_kind || info.host_coherence_kinds);
    try {
      const PinnedBuffer b = device_->alloc_flags(placement, coherence, 128);
      EXPECT_TRUE(listed) << to_string(placement) << "/" << to_string(coherence) << " allocated but not listed";
      EXPECT_NE(b.device(), nullptr);
    } catch (const Error& e) {
      EXPECT_FALSE(listed) << to_string(placement) << "/" << to_string(coherence) << " listed: " << e.what();
      EXPECT_EQ(e.kind(), ErrorKind::unsupported) << e.what();
    }
  }
}

// The timer is calibrated once per process: a second open of the same
// device reports the very same rate and step, not a new measurement.
TEST_P(SignalTest, TheTimerIsCalibratedOncePerProcess) {
  if (order_ != MemoryOrder::volatile_access) GTEST_SKIP() << "the timer does not depend on the order";
  std::string why_not;
  const auto again = open_backend_under_test(std::get<0>(GetParam()), why_not);
  ASSERT_TRUE(again) << why_not;
  EXPECT_EQ(again->info().timer_hz, device_->info().timer_hz);
  EXPECT_EQ(again->info().timer_tick_ns, device_->info().timer_tick_ns);
}

std::string name_of(const ::testing::TestParamInfo<Param>& p) {
  return std::get<0>(p.param) + "_" + to_string(std::get<1>(p.param));
}

const auto kOrders = ::testing::Values(MemoryOrder::volatile_access, MemoryOrder::relaxed, MemoryOrder::acq_rel,
                                       MemoryOrder::fence);
INSTANTIATE_TEST_SUITE_P(host, SignalTest, ::testing::Combine(::testing::Values("host"), kOrders), name_of);
INSTANTIATE_TEST_SUITE_P(gpu, SignalTest, ::testing::Combine(::testing::Values("cuda", "hip"), kOrders), name_of);

}  // namespace
}  // namespace hetprobe
