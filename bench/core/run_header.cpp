#include "bench/core/run_header.hpp"

#include <unistd.h>

#include <chrono>
#include <ctime>

#include "bench/core/cpu_conditions.hpp"
#include "bench/core/noise.hpp"
#include "bench/core/numa_of.hpp"
#include "bench/core/version.hpp"
#include "topology/net_interfaces.hpp"
#include "topology/node_info.hpp"
#include "topology/pci_link.hpp"

namespace hetprobe {

namespace {

Json device_json(const DeviceInfo& d) {
  Json device{{"backend", d.backend},
              {"ordinal", d.ordinal},
              {"name", d.name},
              {"pci_bus_id", d.pci_bus_id.empty() ? Json(nullptr) : Json(d.pci_bus_id)},
              {"driver_version", d.driver_version},
              {"runtime_version", d.runtime_version},
              {"multiprocessors", d.multiprocessors},
              {"max_threads_per_block", d.max_threads_per_block},
              {"warp_size", d.warp_size},
              {"timer_hz_measured", d.timer_hz},
              {"timer_tick_ns", d.timer_tick_ns},
              {"managed_concurrent_access", d.managed_concurrent},
              {"pinned_memory_page_locked", d.page_locked}};
  // Only on a device slowed on purpose: its numbers are not a real device's.
  if (d.simulated_slowdown != 1) device["simulated_slowdown"] = d.simulated_slowdown;
  return device;
}

// sched_getcpu() readings, 1 ms apart, that say which CPUs a rank ran on.
constexpr int kCpuSamples = 16;

// What moves this rank's baseline besides the thing measured: the CPUs it ran
// on with their frequency and idle settings, THP, and where its pinned buffer
// lives. Read on every rank: sender and receiver may sit on different cores.
Json rank_conditions_json(std::byte* pinned) {
  const std::string root = sysfs_root();
  const std::vector<int> ran_on = sample_cpus_ran_on(kCpuSamples, std::chrono::milliseconds(1));
  std::vector<bool> flags;
  Json cpus = Json::array();
  for (const int cpu : ran_on) {
    if (flags.size() <= static_cast<std::size_t>(cpu)) flags.resize(static_cast<std::size_t>(cpu) + 1, false);
    flags[static_cast<std::size_t>(cpu)] = true;
    cpus.push_back(cpu_conditions_json(read_cpu_conditions(cpu, root)));
  }
  std::optional<int> pinned_node;
  if (pinned != nullptr) {
    // A page not yet present has no node: an unlocked host allocation gets
    // its first page here, as the probe's first write would place it.
    volatile std::byte* first = pinned;
    *first = *first;
    pinned_node = numa_node_of(pinned);
  }
  return Json{{"cpus_ran_on", format_cpu_list(flags)},
              {"cpu_samples", kCpuSamples},
              {"cpus", cpus},
              {"transparent_hugepages", transparent_hugepages_json(read_transparent_hugepages(root))},
              {"pinned_buffer_numa_node", pinned_node ? Json(*pinned_node) : Json(nullptr)}};
}

Json rank_json(const MpiContext& mpi, const Device& device, const RunContext& run) {
  const NodeInfo node = read_node_info();
  return Json{{"rank", mpi.rank},
              {"host", mpi.host},
              {"pid", static_cast<long>(getpid())},
              {"cpu_affinity", cpu_affinity_list()},
              {"placement", run.placement},
              {"device", device_json(device.info())},
              {"node",
               {{"cpu_model", node.cpu_model},
                {"online_cpus", node.online_cpus},
                {"page_size_bytes", node.page_size_bytes},
                {"transparent_hugepages", node.transparent_hugepages},
                {"kernel_release", node.kernel_release}}},
              {"network", net_interfaces_json(read_net_interfaces())},
              {"topology", run.topology},
              {"conditions", rank_conditions_json(run.pinned)}};
}

// Each rank's topology is kept only where it differs from rank 0's, the
// header's (another host's, or one a cgroup narrows): null says "the same".
void drop_same_topologies(Json& ranks, const Json& header_topology) {
  for (Json& r : ranks)
    if (r["topology"] == header_topology) r["topology"] = nullptr;
}

// CPUs the ranks on `host` may use: the union of their affinities.
std::vector<bool> node_cpus(const Json& ranks, const std::string& host) {
  std::vector<bool> all;
  for (const Json& r : ranks) {
    if (r.at("host") != host) continue;
    const std::vector<bool> mine = parse_cpu_list(r.at("cpu_affinity").get<std::string>());
    if (mine.size() > all.size()) all.resize(mine.size(), false);
    for (std::size_t c = 0; c < mine.size(); ++c) all[c] = all[c] || mine[c];
  }
  return all;
}

}  // namespace

std::string hetprobe_version() { return kHetprobeVersion; }
std::string hetprobe_git_revision() { return kHetprobeGitRevision; }

namespace {
std::string utc_now(const char* format) {
  const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, format, &tm);
  return buf;
}
}  // namespace

std::string utc_now_iso8601() { return utc_now("%Y-%m-%dT%H:%M:%SZ"); }
std::string utc_now_for_file_name() { return utc_now("%Y%m%dT%H%M%SZ"); }

Json run_header(const RunContext& run, const Device& device, const MpiContext& mpi, const HostClock& clock) {
  const double overhead = clock.empty_region_ns();
  const std::string mine = rank_json(mpi, device, run).dump();
  // Read while the other ranks head for the gather below: they count as
  // running, as they will be in the run (MPI waits spin).
  NodeReadings readings;
  if (mpi.rank == 0) readings = read_node_readings();
  const auto ranks = gather_strings(mpi, mine);
  if (mpi.rank != 0) return nullptr;
  Json rank_list = Json::array();
  for (const auto& r : ranks) rank_list.push_back(Json::parse(r));
  drop_same_topologies(rank_list, run.topology);
  readings.run_cpus = node_cpus(rank_list, mpi.host);
  readings.run_ranks = mpi.node_size;
  const Json noise = conditions_json(readings);
  int version = 0, subversion = 0;
  MPI_Get_version(&version, &subversion);
  return Json{{"record", "header"},
              {"schema", kSchemaName},
              {"schema_version", kSchemaVersion},
              {"probe", run.probe},
              {"hetprobe_version", hetprobe_version()},
              {"git_revision", hetprobe_git_revision()},
              {"command_line", run.command_line},
              {"start_time_utc", utc_now_iso8601()},
              {"resumed", run.resumed},
              {"host", mpi.host},
              {"backend", device.info().backend},
              {"device_choice", run.device_choice},
              {"device", device_json(device.info())},
              {"mpi",
               {{"library_version", mpi_library_version()},
                {"standard", std::to_string(version) + "." + std::to_string(subversion)},
                {"ranks", mpi.size},
                {"transport", run.mpi_transport}}},
              {"ranks", rank_list},
              {"topology", run.topology},
              {"host_clock",
               {{"source", clock.source()},
                {"ticks_per_ns", clock.ticks_per_ns()},
                {"empty_region_median_ns", overhead}}},
              {"config", run.config},
              {"conditions", noise.at("conditions")},
              {"warnings", noise.at("warnings")}};
}

}  // namespace hetprobe
