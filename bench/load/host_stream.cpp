#include "bench/load/host_stream.hpp"

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <thread>

#include "base/errors.hpp"
#include "base/stats.hpp"
#include "base/thread_affinity.hpp"

namespace hetprobe {

namespace {

struct FreeDeleter {
  void operator()(double* p) const { std::free(p); }
};
using Array = std::unique_ptr<double[], FreeDeleter>;

Array alloc_array(std::size_t n) {
  void* p = std::aligned_alloc(4096, (n * sizeof(double) + 4095) / 4096 * 4096);
  if (p == nullptr) throw usage_error("cannot allocate " + std::to_string(n * sizeof(double)) + " bytes for STREAM");
  return Array(static_cast<double*>(p));
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

std::uint64_t auto_stream_array_bytes(const NodeTopology& node) {
  std::uint64_t llc = 0;
  for (const CacheLevel& c : node.caches)
    if (c.name == "L3" || (llc == 0 && c.name == "L2")) llc = c.size_bytes * static_cast<std::uint64_t>(c.count);
  const std::uint64_t per_node = llc / static_cast<std::uint64_t>(std::max(1, node.numa_nodes));
  return std::clamp<std::uint64_t>(4 * per_node, 64ull << 20, 1ull << 30);
}

HostStreamResult measure_host_stream(const Topology& topo, const std::vector<int>& numa_nodes,
                                     std::uint64_t array_bytes, int reps) {
  if (reps < 1) throw usage_error("STREAM needs at least one repetition");
  HostStreamResult r;
  r.numa_nodes = numa_nodes;
  r.cpus = topo.cpuset_of_numa(numa_nodes);
  if (r.cpus.empty()) r.cpus = topo.all_cpus();
  const std::vector<int> cpus = topo.cpus_of(r.cpus);
  r.threads = static_cast<int>(cpus.size());
  const std::size_t n = array_bytes / sizeof(double);
  r.array_bytes = n * sizeof(double);
  topo.bind_memory(numa_nodes);
  Array a = alloc_array(n), b = alloc_array(n), c = alloc_array(n);
  std::barrier sync(r.threads);
  std::vector<double> copy_s(reps), triad_s(reps);
  std::vector<std::thread> team;
  for (int t = 0; t < r.threads; ++t)
    team.emplace_back([&, t] {
      bind_current_thread({cpus[t]});
      try {
        topo.bind_memory(numa_nodes);
      } catch (const Error&) {  // first touch by a thread on these CPUs still puts the pages near
      }
      const std::size_t lo = n * t / r.threads, hi = n * (t + 1) / r.threads;
      // First touch: the pages land near these CPUs. a = b + q*a keeps a at 1.
      for (std::size_t i = lo; i < hi; ++i) a[i] = 1.0, b[i] = 0.5, c[i] = 0.0;
      const double q = 0.5;
      for (int k = 0; k < reps; ++k) {
        sync.arrive_and_wait();
        const auto t0 = std::chrono::steady_clock::now();
        for (std::size_t i = lo; i < hi; ++i) c[i] = a[i];
        sync.arrive_and_wait();  // the slowest thread ends the kernel
        if (t == 0) copy_s[k] = seconds_since(t0);
        sync.arrive_and_wait();
        const auto t1 = std::chrono::steady_clock::now();
        for (std::size_t i = lo; i < hi; ++i) a[i] = b[i] + q * c[i];
        sync.arrive_and_wait();
        if (t == 0) triad_s[k] = seconds_since(t1);
      }
    });
  for (auto& t : team) t.join();
  if (a[n / 2] != 1.0 || c[n / 2] != 1.0 || a[n - 1] != 1.0)
    throw Error(ErrorKind::check, "STREAM arrays hold wrong values after the run");
  for (int k = 0; k < reps; ++k) {
    r.copy_gbs.push_back(2.0 * static_cast<double>(r.array_bytes) / copy_s[k] * 1e-9);
    r.triad_gbs.push_back(3.0 * static_cast<double>(r.array_bytes) / triad_s[k] * 1e-9);
  }
  return r;
}

Json host_stream_record(const std::string& probe, const HostStreamResult& r) {
  Json copy = summary_json(r.copy_gbs), triad = summary_json(r.triad_gbs);
  copy["samples"] = r.copy_gbs;
  triad["samples"] = r.triad_gbs;
  return Json{{"record", "host_memory"},
              {"probe", probe},
              {"method",
               "STREAM copy (c = a, 16 B per element) and triad (a = b + q*c, 24 B per element), "
               "one thread per CPU, each on its own slice"},
              {"numa_nodes", r.numa_nodes},
              {"cpus", r.cpus},
              {"threads", r.threads},
              {"array_bytes", r.array_bytes},
              {"copy_gbs", copy},
              {"triad_gbs", triad},
              {"best_copy_gbs", *std::max_element(r.copy_gbs.begin(), r.copy_gbs.end())},
              {"best_triad_gbs", *std::max_element(r.triad_gbs.begin(), r.triad_gbs.end())}};
}

}  // namespace hetprobe
