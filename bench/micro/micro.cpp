// hetprobe-micro: the single-process costs as Google Benchmark benchmarks, so
// users get its flags (--benchmark_filter, --benchmark_repetitions,
// --benchmark_format=json, --benchmark_out=FILE) and its JSON.
//
// Every benchmark uses manual timing with times measured the way hetprobe
// measures them: host-timed round trips on the calibrated host clock,
// device-side costs on the device timer. Pick the device with
// --device=auto|cuda|hip|host (default auto) and --gpu=N.
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <string>

#include "base/errors.hpp"
#include "bench/protocols/flag_exchange.hpp"
#include "probes/device/device.hpp"
#include "probes/launch/launch_engine.hpp"
#include "probes/signal/signal_engine.hpp"

namespace hetprobe {
namespace {

Device* g_device = nullptr;
SignalEngine* g_signals = nullptr;   // the device thread of the flag benchmarks
LaunchEngine* g_launches = nullptr;  // null where the device has no launch mechanisms
const HostClock* g_clock = nullptr;
constexpr int kOpsPerIteration = 1000;  // flag read+write pairs timed as one iteration

// The CPU side of a notification in a loop on a line it owns: one flag read then one flag
// write, timed as a loop (not paper 002 Table 1, which is notify's handover part).
void BM_CpuFlagReadWrite(benchmark::State& state, MemoryOrder order) {
  PinnedBuffer flag = g_device->alloc_flags(FlagPlacement::pinned, HostCoherence::default_kind, 128);
  auto* p = reinterpret_cast<unsigned long long*>(flag.host());
  *p = 0;
  for (auto _ : state)
    state.SetIterationTime(g_clock->to_ns(cpu_read_write_ticks(order, *g_clock, p, kOpsPerIteration)) * 1e-9);
  state.SetItemsProcessed(state.iterations() * kOpsPerIteration);
  state.SetLabel(std::string(to_string(order)) + ", " + std::to_string(kOpsPerIteration) +
                 " read+write pairs per iteration");
}

// The GPU side: one atomic read then one atomic write by one device thread, on the device timer.
void BM_GpuFlagReadWrite(benchmark::State& state, MemoryOrder order) {
  PinnedBuffer flag = g_device->alloc_flags(FlagPlacement::pinned, HostCoherence::default_kind, 128);
  std::memset(flag.host(), 0, 128);
  auto* p = reinterpret_cast<unsigned long long*>(flag.device());
  for (auto _ : state)
    state.SetIterationTime(static_cast<double>(gpu_read_write_ticks(*g_signals, order, p, kOpsPerIteration, 30)) /
                           g_device->info().timer_hz);
  state.SetItemsProcessed(state.iterations() * kOpsPerIteration);
  state.SetLabel(std::string(to_string(order)) + ", " + std::to_string(kOpsPerIteration) +
                 " pairs per iteration, device timer");
}

// CPU->GPU->CPU through two pinned flags and a persistent device thread: the
// exchanges are measured first, then handed to the benchmark one per iteration.
void BM_RoundTrip(benchmark::State& state, MemoryOrder order) {
  const std::vector<double> ns = cpu_gpu_roundtrip_ns(*g_device, *g_clock, {order, order},
                                                      static_cast<int>(state.max_iterations), 100, 30);
  std::size_t i = 0;
  for (auto _ : state) state.SetIterationTime(ns[i++] * 1e-9);
  state.SetLabel(std::string(to_string(order)) + " both sides, host clock");
}

void BM_Mechanism(benchmark::State& state, LaunchMechanism m) {
  MechanismRun run{static_cast<int>(state.max_iterations), 20, 30, g_clock};
  MechanismSamples out;
  if (g_launches == nullptr) out.skipped = "no kernel launches on the " + g_device->info().backend + " backend";
  else out = g_launches->time(m, run);
  if (!out.skipped.empty()) {
    state.SkipWithError(("skipped: " + out.skipped).c_str());
    for (auto _ : state) {
    }
    return;
  }
  std::size_t i = 0;
  for (auto _ : state) state.SetIterationTime(g_clock->to_ns(out.ticks[i++]) * 1e-9);
  state.SetLabel(to_string(m));
}

// One read of the device timer, on the device timer (1024 reads per iteration).
void BM_DeviceTimerRead(benchmark::State& state) {
  for (auto _ : state) {
    SignalTask t;
    t.kind = SignalKind::tick;
    t.count = 1024;
    const SignalTaskScope task = g_signals->start(t);
    const SignalOutcome out = g_signals->join();
    state.SetIterationTime(static_cast<double>(out.t_end_ticks - out.t_start_ticks) / g_device->info().timer_hz);
  }
  state.SetItemsProcessed(state.iterations() * 1024);
  state.SetLabel("1024 reads per iteration; tick " + std::to_string(g_device->info().timer_tick_ns) + " ns");
}

// One read of the host clock hetprobe times with (not manual: Google Benchmark's own timer).
void BM_HostClockRead(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(g_clock->now());
  state.SetLabel(g_clock->source());
}

void register_all() {
  for (MemoryOrder o : {MemoryOrder::volatile_access, MemoryOrder::relaxed, MemoryOrder::acq_rel, MemoryOrder::fence}) {
    const std::string name = to_string(o);
    benchmark::RegisterBenchmark(("cpu_flag_read_write/" + name).c_str(), BM_CpuFlagReadWrite, o)->UseManualTime();
    benchmark::RegisterBenchmark(("gpu_flag_read_write/" + name).c_str(), BM_GpuFlagReadWrite, o)->UseManualTime();
    benchmark::RegisterBenchmark(("roundtrip/" + name).c_str(), BM_RoundTrip, o)->UseManualTime();
  }
  for (LaunchMechanism m : kLaunchMechanismNames.all())
    benchmark::RegisterBenchmark((std::string("mechanism/") + to_string(m)).c_str(), BM_Mechanism, m)->UseManualTime();
  benchmark::RegisterBenchmark("device_timer_read", BM_DeviceTimerRead)->UseManualTime();
  benchmark::RegisterBenchmark("host_clock_read", BM_HostClockRead);
}

// Takes --device=X and --gpu=N out of argv before Google Benchmark sees it.
std::string take_flag(int& argc, char** argv, const std::string& name, const std::string& fallback) {
  const std::string prefix = "--" + name + "=";
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], prefix.c_str(), prefix.size()) == 0) {
      std::string v = argv[i] + prefix.size();
      for (int j = i; j + 1 < argc; ++j) argv[j] = argv[j + 1];
      --argc;
      return v;
    }
  return fallback;
}

}  // namespace
}  // namespace hetprobe

int main(int argc, char** argv) {
  using namespace hetprobe;
  try {
    const std::string backend = take_flag(argc, argv, "device", "auto");
    const int gpu = std::stoi(take_flag(argc, argv, "gpu", "0"));
    std::string why;
    const std::unique_ptr<Device> device = open_device(backend, gpu, &why);
    const HostClock clock = HostClock::create(ClockChoice::auto_pick);
    const std::unique_ptr<SignalEngine> signals = device->make_signal_engine();
    const std::unique_ptr<LaunchEngine> launches = device->info().launch_mechanisms.empty()
                                                       ? nullptr
                                                       : device->make_launch_engine();
    g_device = device.get();
    g_signals = signals.get();
    g_launches = launches.get();
    g_clock = &clock;
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
    benchmark::AddCustomContext("hetprobe_device", device->info().name + " (" + device->info().backend + ")");
    benchmark::AddCustomContext("hetprobe_device_choice", why);
    benchmark::AddCustomContext("hetprobe_host_clock", clock.source());
    register_all();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "hetprobe-micro: %s error: %s\n", to_string(e.kind()), e.what());
    return exit_code_for(e.kind());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hetprobe-micro: error: %s\n", e.what());
    return 2;
  }
}
