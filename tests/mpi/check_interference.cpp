// Checks an interference results file the MPI tests produced:
//   check_interference FILE POINTS|any REPS [--allow-truncated] [--headers N] [--rate-tolerance F]
// Exits 1 naming the first thing that is wrong. The header's reps must be
// REPS; each point must have rounds x REPS samples, each with its round, one
// visit per round (the points of a size taking every place of each round's
// order once), a paired ratio to SSB whose interval holds it, sane statistics, its payload check as the layout and load
// demand, a writer that ran, and a load that moved data inside the sends from as many GPUs as it names (each with its
// own placement); point keys must be unique.
// --rate-tolerance F: every paced load GPU moved within F of its target rate;
// --rate-ceiling F: no paced load GPU moved more than (1 + F) x its target (a
// load sharing a busy core may fall short of its rate, but never overshoots).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "bench/core/results.hpp"

using hetprobe::Json;

// The load of a point: as many GPUs as it names, each with its placement and
// shape, bytes inside every send (a non-negative number or null), traffic
// during the sends; a paced GPU within `tolerance` of its target. Null when fine.
static const char* check_load(const Json& r, std::size_t reps, double tolerance, bool ceiling, std::size_t& paced,
                              bool& moved) {
  const Json& load = r["load"];
  if (!load.is_object() || load["kind"] != r["load_kind"] || load["gpus"] != r["load_gpus"])
    return "load object disagrees with the key";
  if (load["kind"] == "none") return load["traffic_during_send_gbs"] == 0.0 ? nullptr : "a baseline with traffic";
  if (load["paper"].get<bool>()) return nullptr;
  const Json& side = load["sender"].is_object() ? load["sender"] : load["receiver"];
  if (!side.is_object()) return "a load without a side that ran it";
  if (side["devices"].size() != load["gpus"].get<std::size_t>()) return "fewer load GPUs than the key names";
  if (side["bytes_during_send"].size() != reps) return "bytes during the sends missing";
  std::set<int> ordinals;
  for (const Json& d : side["devices"]) {
    if (!ordinals.insert(d["ordinal"].get<int>()).second) return "one GPU loaded twice";
    if (d["bytes_during_send"].size() != reps || !d["shape"].is_object())
      return "a load GPU without its samples or shape";
    if (d["workers_started"] != d["shape"]["workers"]) return "a load GPU did not start every worker";
    if (!(d["clock_sync"]["used"].get<int>() >= 2)) return "a load GPU without its clock fit";
    for (const Json& b : d["bytes_during_send"])
      if (!b.is_null() && b.get<double>() < 0) return "negative bytes during a send";
    // A load moves data over its points (the file must show some); here, where
    // its threads share two cores with ranks that busy-poll MPI, a short point
    // or the sends inside it may pass before they run.
    if (!(d["rate_over_point_gbs"].is_number() && d["rate_over_point_gbs"].get<double>() >= 0))
      return "a load GPU without its rate over the point";
    moved = moved || d["rate_over_point_gbs"].get<double>() > 0;
    if (!(d["traffic_during_send_gbs"].is_number() && d["traffic_during_send_gbs"].get<double>() >= 0))
      return "a load GPU without its traffic during the sends";
    if (d["target_gbs"].is_number()) {
      ++paced;
      const double target = d["target_gbs"], got = d["rate_over_point_gbs"];
      if (tolerance >= 0 && (ceiling ? got - target : std::abs(got - target)) > tolerance * target) {
        std::fprintf(stderr, "check_interference: ordinal %d moved %.4f GB/s, target %.4f\n", d["ordinal"].get<int>(),
                     got, target);
        return "a paced load missed its target rate";
      }
    }
  }
  if (!(load["traffic_during_send_gbs"].get<double>() >= 0)) return "no traffic figure for the sends";
  return nullptr;
}

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
  double rate_tolerance = -1;
  bool rate_ceiling = false;
  for (int i = 4; i < argc; ++i) {
    if (std::string(argv[i]) == "--allow-truncated") allow_truncated = true;
    if (std::string(argv[i]) == "--headers" && i + 1 < argc) headers_expected = std::stoul(argv[++i]);
    if (std::string(argv[i]) == "--rate-tolerance" && i + 1 < argc) rate_tolerance = std::stod(argv[++i]);
    if (std::string(argv[i]) == "--rate-ceiling" && i + 1 < argc)
      rate_tolerance = std::stod(argv[++i]), rate_ceiling = true;
  }
  std::size_t host_memory = 0, paced = 0;
  bool paper_run = false, moved = false, loaded = false;
  const hetprobe::ResultsFile file = hetprobe::read_results(argv[1]);
  if (file.truncated_tail && !allow_truncated) return fail("incomplete last line");
  std::size_t headers = 0, rounds = 0;
  // Per size and round, the places its points took in the round's order.
  std::map<std::pair<std::uint64_t, std::size_t>, std::multiset<int>> places;
  std::set<std::tuple<std::uint64_t, std::string, std::string, std::string, int, std::string>> keys;
  for (const Json& r : file.records) {
    if (r["record"] == "host_memory") {
      ++host_memory;
      if (!(r["best_copy_gbs"].get<double>() > 0 && r["best_triad_gbs"].get<double>() > 0 &&
            r["threads"].get<int>() > 0))
        return fail("host_memory record without a bandwidth");
      continue;
    }
    if (r["record"] == "header") {
      ++headers;
      paper_run = r["config"]["paper"].get<bool>();
      if (r["config"]["reps"].get<std::size_t>() != reps)
        return fail("the header's reps is not " + std::to_string(reps));
      rounds = r["config"]["rounds"].get<std::size_t>();
      if (rounds < 1 || !r["config"]["seed"].is_number_unsigned()) return fail("header lacks its rounds or seed");
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
    const std::string layout = r["layout"], kind = r["load_kind"];
    const int gpus = r["load_gpus"];
    const std::string rate = r["load_rate"].is_null() ? "" : r["load_rate"].get<std::string>();
    const std::string where = layout + " " + std::to_string(r["size_bytes"].get<std::uint64_t>()) + " " +
                              r["access"].get<std::string>() + " " + kind + " x" + std::to_string(gpus) + " " + rate;
    if (!keys.insert({r["size_bytes"], layout, r["access"], kind, gpus, rate}).second)
      return fail("duplicate point " + where);
    loaded = loaded || (kind != "none" && !paper_run);
    if ((layout == "SSB") != (kind == "none") || (kind == "none") != (gpus == 0))
      return fail(where + ": SSB and only SSB is the baseline without a load");
    const std::size_t n = rounds * reps;
    if (const char* why = check_load(r, n, rate_tolerance, rate_ceiling, paced, moved)) return fail(where + ": " + why);
    const Json& t = r["send_time_ns"];
    if (t["samples"].size() != n || r["n"] != n || t["rounds"].size() != n) return fail(where + ": wrong sample count");
    for (std::size_t i = 0; i < n; ++i)
      if (t["rounds"][i].get<std::size_t>() != i / reps) return fail(where + ": samples out of round order");
    if (r["round_positions"].size() != rounds || t["round_medians"].size() != rounds)
      return fail(where + ": not one visit per round");
    for (std::size_t k = 0; k < rounds; ++k)
      places[{r["size_bytes"].get<std::uint64_t>(), k}].insert(r["round_positions"][k].get<int>());
    if (const Json& ci = r["ratio_to_ssb_ci95"]; ci.is_array()) {
      const double ratio = r["ratio_to_ssb_median"];
      if (!(ci[0].get<double>() <= ratio && ratio <= ci[1].get<double>()))
        return fail(where + ": the ratio lies outside its interval");
      if (!r["effect"].is_string()) return fail(where + ": an interval without its effect");
    } else if (layout != "SSB" && rounds >= 6 && !r["ratio_to_ssb_median"].is_null()) {
      return fail(where + ": 6 rounds or more and no interval");
    }
    if (!(t["min"] <= t["median"] && t["median"] <= t["max"] && t["min"].get<double>() > 0))
      return fail(where + ": implausible statistics");
    const std::string check = r["payload"]["check"];
    const bool racy = layout == "PSB" && (kind == "write" || kind == "copy-d2h");
    if (racy) {
      const double torn = r["payload"]["torn_fraction"]["median"];
      if (check != "torn" || torn < 0 || torn > 1) return fail(where + ": PSB must report a torn fraction in [0, 1]");
    } else if (check != "intact" || r["status"] != "ok") {
      return fail(where + ": payload " + check + ", status " + r["status"].get<std::string>());
    }
    // The paper's writer (--paper) on the host timeline: start <= ready <= end in every
    // sample (one clock fit maps all three), and for SSB the writer is done
    // before the send starts (its payload must be there to send). The loads'
    // payload writer runs once per point: no timeline.
    const Json& tl = r["writer_timeline"];
    if ((paper_run && !r["writer"]["sender"].is_null()) != !tl.is_null())
      return fail(where + ": a writer timeline iff the paper's writer ran on the sender");
    if (!tl.is_null()) {
      if (tl["start_ns"].size() != n || tl["end_ns"].size() != n) return fail(where + ": writer timeline incomplete");
      for (std::size_t i = 0; i < n; ++i) {
        const double start = tl["start_ns"][i], ready = tl["ready_ns"][i], end = tl["end_ns"][i];
        if (!(start <= ready && ready <= end)) return fail(where + ": writer timeline out of order");
        if (layout == "SSB" && end > tl["clock_sync"]["precision_ns"].get<double>())
          return fail(where + ": SSB writer ended after the send started");
      }
    }
    for (const char* side : {"sender", "receiver"}) {
      const Json& w = r["writer"][side];
      if (w.is_null()) continue;
      if (!paper_run) {  // the CPU wrote the payload
        if (!w["pre_write_gbs"].is_null() || r["payload_writer"] != "cpu") return fail(where + ": the CPU's payload");
        continue;
      }
      if (!w["pre_write_gbs"].is_object()) return fail(where + ": the payload writer's rate is missing");
      if (w["passes"].size() != n) return fail(where + ": writer passes missing");
      for (const Json& p : w["passes"])  // the writer checks the stop flag only after a full pass
        if ((layout == "SSB") != (p.get<double>() == 0)) return fail(where + ": writer passes do not fit the layout");
    }
  }
  if (loaded && !moved) return fail("no load moved any data in any point");
  // A whole size: its points took each place 0..count-1 of every round's order
  // once (in one run: a resumed size keeps the first run's finished points).
  std::map<std::uint64_t, std::size_t> per_size;
  for (const auto& k : keys) ++per_size[std::get<0>(k)];
  if (!allow_truncated && headers == 1)
    for (const auto& [where, seen] : places) {
      std::multiset<int> want;
      for (std::size_t i = 0; i < per_size[where.first]; ++i) want.insert(static_cast<int>(i));
      if (seen != want)
        return fail("size " + std::to_string(where.first) + ": round " + std::to_string(where.second) +
                    " did not visit each point once");
    }
  if (rate_tolerance >= 0 && paced == 0) return fail("a rate check was asked for, but no load had a target rate");
  if (host_memory > headers) return fail("more host_memory records than headers");
  if (headers != headers_expected)
    return fail("expected " + std::to_string(headers_expected) + " header(s), found " + std::to_string(headers));
  if (!any_points && keys.size() != points)
    return fail("expected " + std::to_string(points) + " points, found " + std::to_string(keys.size()));
  std::printf("check_interference: %s: %zu points, %zu header(s), OK\n", argv[1], keys.size(), headers);
  return 0;
}
