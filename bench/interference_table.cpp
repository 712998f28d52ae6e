#include "hetprobe/interference_table.hpp"

#include <cmath>
#include <string>

#include "hetprobe/sizes.hpp"

namespace hetprobe {

namespace {
std::string number(const Json& v, const char* format) {
  if (!v.is_number()) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, format, v.get<double>());
  return buf;
}

// The GPU traffic during the send, GB/s: the load's (files from before the
// load kinds: the sender writer's, else the receiver's over its post phase).
Json traffic_gbs(const Json& point) {
  if (point.contains("load") && point["load"].is_object()) return point["load"]["traffic_during_send_gbs"];
  const Json& w = point["writer"];
  if (w["sender"].is_object()) return w["sender"]["bandwidth_during_send_gbs"];
  if (w["receiver"].is_object() && w["receiver"]["post_phase_gbs"].is_object())
    return w["receiver"]["post_phase_gbs"]["median"];
  return nullptr;
}

// "write x2 @0.5": kind, GPUs and rate (rate 1 left out); "-" for none.
std::string load_text(const Json& p) {
  const std::string kind = p.value("load_kind", p["layout"] == "SSB" ? "none" : "write");
  if (kind == "none") return "-";
  std::string s = kind + " x" + std::to_string(p.value("load_gpus", 1));
  const Json rate = p.value("load_rate", Json("1"));
  if (rate.is_string() && rate.get<std::string>() != "1") s += " @" + rate.get<std::string>();
  return s;
}

std::string payload_text(const Json& p) {
  const std::string check = p["check"].get<std::string>();
  if (check == "torn") return "torn " + number(p["torn_fraction"]["median"], "%.3f");
  return check;
}
}  // namespace

void InterferenceTable::print_heading(const Json& h) {
  const Json& c = h["config"];
  const bool paper = c.value("paper", !c.contains("loads"));
  std::fprintf(out_, "# hetprobe interference: %s (%s) on %s, MPI %s, GPU on the %s, %d samples/point after %d warm-up%s\n",
               h["device"]["name"].get<std::string>().c_str(), h["backend"].get<std::string>().c_str(),
               h["host"].get<std::string>().c_str(), c["send_mode"].get<std::string>().c_str(),
               c["writer_side"].get<std::string>().c_str(), c["reps"].get<int>(), c["warmup"].get<int>(),
               paper ? "; the paper's writer" : "");
  const Json bytes = c.value("load_bytes", c["secondary_bytes"]);
  std::fprintf(out_, "# MPI_Send time in microseconds (median, p10, p90); vs_SSB = median / SSB median; load = kind "
                     "x GPUs @ rate (of full, or GB/s per GPU) into %s B; traffic = GB/s the load moved during "
                     "the send\n", bytes.is_string() ? bytes.get<std::string>().c_str() : bytes.dump().c_str());
  std::fprintf(out_, "%10s %-8s %-5s %-18s %11s %11s %11s %7s %9s  %s\n", "size", "access", "layout", "load",
               "median_us", "p10_us", "p90_us", "vs_SSB", "traffic", "payload");
  std::fflush(out_);
}

void InterferenceTable::print_row(const Json& p) {
  const Json& t = p["send_time_ns"];
  const double median = t["median"].get<double>();
  if (rows_++ == 0 || median < smallest_median_ns_) {
    smallest_median_ns_ = median;
    // Files from before the per-send harness measurement lack it (NaN: unknown).
    const Json harness = p.value("harness_empty_region_ns", Json());
    harness_at_smallest_ns_ = harness.is_object() ? harness["median"].get<double>() : std::nan("");
  }
  std::fprintf(out_, "%10s %-8s %-5s %-18s %11.3f %11.3f %11.3f %7s %9s  %s\n",
               format_size(p["size_bytes"].get<std::uint64_t>()).c_str(),
               p["access"].get<std::string>().c_str(), p["layout"].get<std::string>().c_str(),
               load_text(p).c_str(), median / 1e3, t["p10"].get<double>() / 1e3, t["p90"].get<double>() / 1e3,
               number(p["ratio_to_ssb_median"], "%.2f").c_str(), number(traffic_gbs(p), "%.2f").c_str(),
               payload_text(p["payload"]).c_str());
  std::fflush(out_);
}

void InterferenceTable::print_footer(const Json& h) {
  if (rows_ == 0) return;
  const Json& clock = h["host_clock"];
  std::fprintf(out_, "# harness (%s clock): an empty timed region before each send costs %.1f ns median at the "
                     "point with the smallest median send time (%.1f ns): %.2f%% of it; %.1f ns at start-up\n",
               clock["source"].get<std::string>().c_str(), harness_at_smallest_ns_, smallest_median_ns_,
               100.0 * harness_at_smallest_ns_ / smallest_median_ns_,
               clock["empty_region_median_ns"].get<double>());
  std::fflush(out_);
}

}  // namespace hetprobe
