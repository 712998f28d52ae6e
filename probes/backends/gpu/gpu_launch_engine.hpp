// The launch mechanisms of the notification probe on a GPU: every way to
// say "go" or "done" that needs the runtime (a launch, a synchronise, an
// event, a host callback, a stream memory operation, a copy). Each sample is
// a host-timed round trip, go through done. GpuLaunchEngine owns what they
// share. Included by gpu_device.cpp.
#pragma once

#include <atomic>
#include <string>
#include <thread>

#include "probes/backends/gpu/gpu_kernels.hpp"
#include "probes/backends/gpu/gpu_signal_engine.hpp"
#include "probes/device/host_spin.hpp"
#include "probes/launch/launch_engine.hpp"
#include "probes/signal/host_signal_ops.hpp"

namespace hetprobe::HETPROBE_BACKEND_NS {

// What the mechanisms share: the launch engine's streams and flags.
struct MechanismContext {
  SignalEngine& echo;          // for the persistent echo task
  gpu::Stream stream;          // kernels and stream operations
  gpu::Stream copy_stream;     // copies that must not queue behind a running kernel
  unsigned long long* go;      // pinned, host view: host -> device
  unsigned long long* go_dev;  // ... device view
  unsigned long long* ack;     // pinned, host view: device -> host
  unsigned long long* ack_dev;
  unsigned long long* copy_source;  // pinned, host view: what a copy puts in the device flag
  unsigned long long* device_flag;  // device memory
  unsigned long long seq = 0;       // last sequence number used; flags only grow
};

// The host callback's flag: one mechanism sample at a time, so one will do.
inline std::atomic<unsigned long long> g_callback_seq{0};
inline void callback_set_seq(void* seq) {
  g_callback_seq.store(reinterpret_cast<unsigned long long>(seq), std::memory_order_release);
}

// Runs warm-up then timed samples: prepare(seq) untimed, then t0, go(seq)
// (the launch call's own time noted), done(seq), t1, then settle() untimed.
template <class Prepare, class Go, class Done, class Settle>
MechanismSamples sample_mechanism(MechanismContext& c, const MechanismRun& run, Prepare prepare, Go go, Done done,
                                  Settle settle) {
  MechanismSamples out;
  const HostClock& clock = *run.clock;
  for (int i = 0; i < run.warmup + run.samples; ++i) {
    const unsigned long long seq = ++c.seq;
    prepare(seq);
    const std::uint64_t t0 = clock.now();
    go(seq);
    const std::uint64_t t_go = clock.now();
    done(seq);
    const std::uint64_t t1 = clock.now();
    settle();
    if (i < run.warmup) continue;
    out.ticks.push_back(t1 - t0);
    out.go_call_ticks.push_back(t_go - t0);
  }
  return out;
}

inline MechanismSamples time_gpu_mechanism(LaunchMechanism m, const MechanismRun& run, MechanismContext& c) {
  const double timeout = run.timeout_s;
  auto nothing = [](unsigned long long) {};
  auto sync_stream = [&] { HP_CHECK(HP_RT(StreamSynchronize)(c.stream)); };
  auto launch_empty = [&](unsigned long long) {
    empty_kernel<<<1, 1, 0, c.stream>>>();
    HP_CHECK(HP_RT(GetLastError)());
  };
  auto wait_ack = [&](unsigned long long seq) {
    spin_host([&] { return HostSignalOps{}.load_acquire(c.ack) >= seq; }, timeout, "the device's acknowledgement");
  };
  switch (m) {
    case LaunchMechanism::launch_flag:
      return sample_mechanism(
          c, run, nothing,
          [&](unsigned long long seq) {
            ack_kernel<<<1, 1, 0, c.stream>>>(c.ack_dev, seq);
            HP_CHECK(HP_RT(GetLastError)());
          },
          wait_ack, sync_stream);
    case LaunchMechanism::launch_device_sync:
      return sample_mechanism(
          c, run, nothing, launch_empty, [&](unsigned long long) { HP_CHECK(HP_RT(DeviceSynchronize)()); }, [] {});
    case LaunchMechanism::launch_event_query:
    case LaunchMechanism::launch_event_sync: {
      gpu::Event ev{};
      HP_CHECK(HP_RT(EventCreateWithFlags)(&ev, HP_RT(EventDisableTiming)));
      const bool query = m == LaunchMechanism::launch_event_query;
      MechanismSamples out = sample_mechanism(
          c, run, nothing,
          [&](unsigned long long seq) {
            launch_empty(seq);
            HP_CHECK(HP_RT(EventRecord)(ev, c.stream));
          },
          [&](unsigned long long) {
            if (!query) {
              HP_CHECK(HP_RT(EventSynchronize)(ev));
              return;
            }
            gpu::Error e{};
            spin_host([&] { return (e = HP_RT(EventQuery)(ev)) != HP_RT(ErrorNotReady); }, timeout, "the event");
            HP_CHECK(e);
          },
          [] {});
      (void)HP_RT(EventDestroy)(ev);
      return out;
    }
    case LaunchMechanism::launch_host_callback: {
      MechanismSamples probe;
      if (probe.skipped = gpu::launch_host_func(c.stream, callback_set_seq, reinterpret_cast<void*>(c.seq));
          !probe.skipped.empty())
        return probe;
      sync_stream();
      return sample_mechanism(
          c, run, nothing,
          [&](unsigned long long seq) {
            launch_empty(seq);
            if (const std::string why = gpu::launch_host_func(c.stream, callback_set_seq, reinterpret_cast<void*>(seq));
                !why.empty())
              throw Error(ErrorKind::device, why);
          },
          [&](unsigned long long seq) {
            spin_host([&] { return g_callback_seq.load(std::memory_order_acquire) >= seq; }, timeout,
                      "the host callback");
          },
          sync_stream);
    }
    case LaunchMechanism::launch_stream_write_value: {
      MechanismSamples probe;
      if (probe.skipped = gpu::stream_write_value64(c.stream, c.ack_dev, c.seq); !probe.skipped.empty()) return probe;
      sync_stream();
      return sample_mechanism(
          c, run, nothing,
          [&](unsigned long long seq) {
            launch_empty(seq);
            if (const std::string why = gpu::stream_write_value64(c.stream, c.ack_dev, seq); !why.empty())
              throw Error(ErrorKind::device, why);
          },
          wait_ack, sync_stream);
    }
    case LaunchMechanism::stream_wait_value: {
      MechanismSamples probe;
      if (probe.skipped = gpu::stream_wait_value64_geq(c.stream, c.go_dev, 0); !probe.skipped.empty()) return probe;
      sync_stream();
      return sample_mechanism(
          c, run,
          [&](unsigned long long seq) {
            if (const std::string why = gpu::stream_wait_value64_geq(c.stream, c.go_dev, seq); !why.empty())
              throw Error(ErrorKind::device, why);
            ack_kernel<<<1, 1, 0, c.stream>>>(c.ack_dev, seq);
            HP_CHECK(HP_RT(GetLastError)());
            // Let the front end reach the wait before the clock starts.
            std::this_thread::sleep_for(std::chrono::microseconds(50));
          },
          [&](unsigned long long seq) { HostSignalOps{}.store_release(c.go, seq); }, wait_ack, sync_stream);
    }
    case LaunchMechanism::device_flag_memcpy: {
      // A persistent device thread echoes the device-memory flag to the pinned ack.
      HP_CHECK(HP_RT(Memset)(c.device_flag, 0, sizeof(unsigned long long)));
      SignalTask echo;
      echo.kind = SignalKind::echo;
      echo.to_device = c.device_flag;
      echo.to_host = c.ack_dev;
      echo.first = c.seq + 1;
      echo.count = static_cast<std::uint64_t>(run.warmup + run.samples);
      echo.timeout_s = timeout;
      const SignalTaskScope echoing = c.echo.start(echo);
      MechanismSamples out = sample_mechanism(
          c, run, [&](unsigned long long seq) { *c.copy_source = seq; },
          [&](unsigned long long) {
            HP_CHECK(HP_RT(MemcpyAsync)(c.device_flag, c.copy_source, sizeof(unsigned long long),
                                        HP_RT(MemcpyHostToDevice), c.copy_stream));
          },
          wait_ack, [&] { HP_CHECK(HP_RT(StreamSynchronize)(c.copy_stream)); });
      if (c.echo.join().timed_out) throw Error(ErrorKind::timeout, "the device-flag echo timed out");
      return out;
    }
  }
  return {};
}

class GpuLaunchEngine final : public LaunchEngine {
 public:
  explicit GpuLaunchEngine(const Device& device) : ordinal_(device.info().ordinal), echo_(device, new_pinned_result()) {
    HP_CHECK(HP_RT(SetDevice)(ordinal_));
    HP_CHECK(HP_RT(StreamCreateWithFlags)(&stream_, HP_RT(StreamNonBlocking)));
    HP_CHECK(HP_RT(StreamCreateWithFlags)(&copy_stream_, HP_RT(StreamNonBlocking)));
    HP_CHECK(gpu::host_alloc(reinterpret_cast<void**>(&flags_), 3 * sizeof(FlagLine)));
    flags_[0] = flags_[1] = flags_[2] = {};
    HP_CHECK(HP_RT(HostGetDevicePointer)(reinterpret_cast<void**>(&flags_dev_), flags_, 0));
    HP_CHECK(HP_RT(Malloc)(reinterpret_cast<void**>(&device_flag_), sizeof(unsigned long long)));
  }
  ~GpuLaunchEngine() override {
    (void)HP_RT(SetDevice)(ordinal_);
    for (gpu::Stream s : {stream_, copy_stream_}) {
      (void)HP_RT(StreamSynchronize)(s);
      (void)HP_RT(StreamDestroy)(s);
    }
    (void)HP_RT(Free)(device_flag_);
    (void)gpu::host_free(flags_);
  }

  MechanismSamples time(LaunchMechanism m, const MechanismRun& run) override {
    HP_CHECK(HP_RT(SetDevice)(ordinal_));
    MechanismContext c{echo_,
                       stream_,
                       copy_stream_,
                       &flags_[0].value,
                       &flags_dev_[0].value,
                       &flags_[1].value,
                       &flags_dev_[1].value,
                       &flags_[2].value,
                       device_flag_,
                       seq_};
    MechanismSamples out = time_gpu_mechanism(m, run, c);
    seq_ = c.seq;
    return out;
  }

 private:
  int ordinal_;
  GpuSignalEngine echo_;
  gpu::Stream stream_{}, copy_stream_{};
  FlagLine* flags_ = nullptr;  // go, ack, copy source
  FlagLine* flags_dev_ = nullptr;
  unsigned long long* device_flag_ = nullptr;
  unsigned long long seq_ = 0;
};

}  // namespace hetprobe::HETPROBE_BACKEND_NS
