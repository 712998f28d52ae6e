// Checks an interference results file the MPI tests produced:
//   check_interference FILE POINTS|any REPS [--allow-truncated] [--headers N]
// Exits 1 naming the first thing that is wrong. Each point must have REPS
// samples, sane statistics, its payload check as the layout demands and a
// writer that ran; point keys must be unique.
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <tuple>

#include "hetprobe/results.hpp"

using hetprobe::Json;

static int fail(const std::string& what) {
  std::fprintf(stderr, "check_interference: %s\n", what.c_str());
  return 1;
}

int main(int argc, char** argv) {
  if (argc < 4) return fail("usage: check_interference FILE POINTS REPS [--allow-truncated] [--headers N]");
  const bool any_points = std::string(argv[2]) == "any";
  const std::size_t points = any_points ? 0 : std::stoul(argv[2]);
  const std::size_t reps = std::stoul(argv[3]);
  bool allow_truncated = false;
  std::size_t headers_expected = 1;
  for (int i = 4; i < argc; ++i) {
    if (std::string(argv[i]) == "--allow-truncated") allow_truncated = true;
    if (std::string(argv[i]) == "--headers" && i + 1 < argc) headers_expected = std::stoul(argv[++i]);
  }
  const hetprobe::ResultsFile file = hetprobe::read_results(argv[1]);
  if (file.truncated_tail && !allow_truncated) return fail("incomplete last line");
  std::size_t headers = 0;
  std::set<std::tuple<std::uint64_t, std::string, std::string>> keys;
  for (const Json& r : file.records) {
    if (r["record"] == "header") {
      ++headers;
      for (const char* k : {"schema_version", "hetprobe_version", "git_revision", "command_line", "start_time_utc",
                            "host", "device", "mpi", "ranks", "host_clock", "config"})
        if (!r.contains(k)) return fail(std::string("header lacks ") + k);
      if (r["ranks"].size() != 2) return fail("header should describe 2 ranks");
      if (!r.contains("topology") || r["topology"]["pus"].get<int>() < 1) return fail("header lacks the topology");
      for (const Json& rank : r["ranks"]) {  // each rank's placement, read back
        const Json& p = rank["placement"];
        if (p.is_null() || p["cpuset"].get<std::string>().empty() || p["cpu_numa_nodes"].empty() ||
            p["buffer_numa_nodes"].is_null())
          return fail("header lacks rank " + rank["rank"].dump() + "'s placement");
        if (p["cpuset"] != rank["cpu_affinity"]) return fail("placement cpuset and sched_getaffinity disagree");
      }
      continue;
    }
    const std::string layout = r["layout"], where = layout + " " + std::to_string(r["size_bytes"].get<std::uint64_t>()) + " " + r["access"].get<std::string>();
    if (!keys.insert({r["size_bytes"], layout, r["access"]}).second) return fail("duplicate point " + where);
    const Json& t = r["send_time_ns"];
    if (t["samples"].size() != reps || r["n"] != reps) return fail(where + ": wrong sample count");
    if (!(t["min"] <= t["median"] && t["median"] <= t["max"] && t["min"].get<double>() > 0))
      return fail(where + ": implausible statistics");
    const std::string check = r["payload"]["check"];
    if (layout == "PSB") {
      const double torn = r["payload"]["torn_fraction"]["median"];
      if (check != "torn" || torn < 0 || torn > 1) return fail(where + ": PSB must report a torn fraction in [0, 1]");
    } else if (check != "intact" || r["status"] != "ok") {
      return fail(where + ": payload " + check + ", status " + r["status"].get<std::string>());
    }
    // The sender's writer on the host timeline: start <= ready <= end in every
    // sample (one clock fit maps all three), and for SSB the writer is done
    // before the send starts (its payload must be there to send).
    const Json& tl = r["writer_timeline"];
    if (r["writer"]["sender"].is_null() != tl.is_null()) return fail(where + ": writer timeline iff a sender writer");
    if (!tl.is_null()) {
      if (tl["start_ns"].size() != reps || tl["end_ns"].size() != reps) return fail(where + ": writer timeline incomplete");
      for (std::size_t i = 0; i < reps; ++i) {
        const double start = tl["start_ns"][i], ready = tl["ready_ns"][i], end = tl["end_ns"][i];
        if (!(start <= ready && ready <= end)) return fail(where + ": writer timeline out of order");
        if (layout == "SSB" && end > tl["clock_sync"]["precision_ns"].get<double>())
          return fail(where + ": SSB writer ended after the send started");
      }
    }
    for (const char* side : {"sender", "receiver"}) {
      const Json& w = r["writer"][side];
      if (w.is_null()) continue;
      if (w["passes"].size() != reps) return fail(where + ": writer passes missing");
      for (const Json& p : w["passes"])  // the writer checks the stop flag only after a full pass
        if ((layout == "SSB") != (p.get<double>() == 0)) return fail(where + ": writer passes do not fit the layout");
    }
  }
  if (headers != headers_expected) return fail("expected " + std::to_string(headers_expected) + " header(s), found " + std::to_string(headers));
  if (!any_points && keys.size() != points) return fail("expected " + std::to_string(points) + " points, found " + std::to_string(keys.size()));
  std::printf("check_interference: %s: %zu points, %zu header(s), OK\n", argv[1], keys.size(), headers);
  return 0;
}
