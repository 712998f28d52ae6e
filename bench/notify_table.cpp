#include "hetprobe/notify_table.hpp"

#include <cmath>

namespace hetprobe {

namespace {

// A summary field in ns as text: "-" when absent or unresolved.
std::string ns(const Json& summary, const char* key) {
  if (!summary.is_object() || !summary.contains(key) || !summary[key].is_number()) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", summary[key].get<double>());
  return buf;
}

std::string setup_text(const Json& setup) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%-8s %-8s %-7s %-9s", setup["cpu_order"].get<std::string>().c_str(),
                setup["gpu_order"].get<std::string>().c_str(), setup["placement"].get<std::string>().c_str(),
                setup["spacing"].get<std::string>().c_str());
  return buf;
}

std::string samples_text(const Json& summary) {
  return summary.is_object() && summary.contains("n") ? std::to_string(summary["n"].get<long>()) : "0";
}

void heading(std::FILE* out, const char* probe, const Json& header) {
  const Json& d = header["device"];
  std::fprintf(out, "# hetprobe %s: %s (%s) on %s; device timer tick %.3g ns, host clock %s\n", probe,
               d["name"].get<std::string>().c_str(), d["backend"].get<std::string>().c_str(),
               header["host"].get<std::string>().c_str(), d.value("timer_tick_ns", 0.0),
               header["host_clock"]["source"].get<std::string>().c_str());
}

}  // namespace

std::string record_label(const Json& r) {
  const std::string kind = r.value("record", "");
  if (kind == "overhead")
    return "overhead " + r["side"].get<std::string>() + (r["contended"].get<bool>() ? " contended" : " uncontended") +
           " (" + r["setup"]["cpu_order"].get<std::string>() + "/" + r["setup"]["gpu_order"].get<std::string>() + ")";
  if (kind == "roundtrip")
    return "roundtrip " + r["direction"].get<std::string>() + " (" + r["setup"]["cpu_order"].get<std::string>() +
           "/" + r["setup"]["gpu_order"].get<std::string>() + "): median " + ns(r["roundtrip_ns"], "median") + " ns";
  if (kind == "mechanism")
    return "mechanism " + r["mechanism"].get<std::string>() + ": " +
           (r["status"] == "ok" ? "median " + ns(r["roundtrip_ns"], "median") + " ns" : "skipped");
  if (kind == "clock_batch")
    return "clock batch " + std::to_string(r["batch"].get<int>()) + " (" + r["role"].get<std::string>() +
           ") at " + std::to_string(r["at_s"].get<double>()).substr(0, 5) + " s";
  if (kind == "clock_fit") return "clock fit";
  if (kind == "halo")
    return "halo " + r["layout"].get<std::string>() + " " + r["variant"].get<std::string>() + ": median " +
           ns(r["iteration_ns"], "median") + " ns per iteration, " + r["status"].get<std::string>();
  return kind;
}

void print_notify_tables(std::FILE* out, const Json& header, const std::vector<Json>& records) {
  heading(out, "notify", header);
  std::fprintf(out, "# all times in ns: median (p10, p90) over n samples; rank shown where more than one ran\n");
  bool first = true;
  for (const Json& r : records) {
    if (r.value("record", "") != "overhead") continue;
    if (first) {
      std::fprintf(out, "\n## Notification overhead (paper 002 Table 1): one flag read + one flag write, per pair;\n"
                        "## CPU side on the host clock, GPU side on the device timer; contended: the other side polls the flag\n");
      std::fprintf(out, "%-4s %-8s %-8s %-7s %-9s %-4s %-10s %10s %10s %10s %7s %s\n", "rank", "cpu", "gpu", "flags",
                    "spacing", "side", "contention", "median", "p10", "p90", "n", "ops/sample");
      first = false;
    }
    const Json& s = r["ns_per_op"];
    std::fprintf(out, "%-4d %s %-4s %-10s %10s %10s %10s %7s %d%s\n", r.value("rank", 0), setup_text(r["setup"]).c_str(),
                 r["side"].get<std::string>().c_str(), r["contended"].get<bool>() ? "polled" : "none",
                 ns(s, "median").c_str(), ns(s, "p10").c_str(), ns(s, "p90").c_str(), samples_text(s).c_str(),
                 r["ops_per_sample"].get<int>(), s.value("unresolved", false) ? " (below timer tick)" : "");
  }
  first = true;
  for (const Json& r : records) {
    if (r.value("record", "") != "roundtrip") continue;
    if (first) {
      std::fprintf(out, "\n## Round trip through two flags (a persistent device thread; half = one notification)\n");
      std::fprintf(out, "%-4s %-8s %-8s %-7s %-9s %-12s %-6s %10s %10s %10s %10s %7s\n", "rank", "cpu", "gpu", "flags",
                   "spacing", "direction", "timer", "median", "p10", "p90", "half_med", "n");
      first = false;
    }
    const Json& s = r["roundtrip_ns"];
    std::fprintf(out, "%-4d %s %-12s %-6s %10s %10s %10s %10s %7s\n", r.value("rank", 0), setup_text(r["setup"]).c_str(),
                 r["direction"].get<std::string>().c_str(), r["timed_by"].get<std::string>().c_str(),
                 ns(s, "median").c_str(), ns(s, "p10").c_str(), ns(s, "p90").c_str(),
                 ns(r["half_roundtrip_ns"], "median").c_str(), samples_text(s).c_str());
  }
  first = true;
  for (const Json& r : records) {
    if (r.value("record", "") != "mechanism") continue;
    if (first) {
      std::fprintf(out, "\n## Mechanisms, side by side: host-timed round trip = CPU says go + GPU says done\n");
      std::fprintf(out, "%-4s %-26s %10s %10s %10s %10s %7s  %s\n", "rank", "mechanism", "median", "p10", "p90",
                   "go_call", "n", "go / done");
      first = false;
    }
    if (r["status"] != "ok") {
      std::fprintf(out, "%-4d %-26s %10s %10s %10s %10s %7s  skipped: %s\n", r.value("rank", 0),
                   r["mechanism"].get<std::string>().c_str(), "-", "-", "-", "-", "0",
                   r["skipped_reason"].get<std::string>().c_str());
      continue;
    }
    const Json& s = r["roundtrip_ns"];
    std::fprintf(out, "%-4d %-26s %10s %10s %10s %10s %7s  %s / %s\n", r.value("rank", 0),
                 r["mechanism"].get<std::string>().c_str(), ns(s, "median").c_str(), ns(s, "p10").c_str(),
                 ns(s, "p90").c_str(), ns(r.value("go_call_ns", Json()), "median").c_str(), samples_text(s).c_str(),
                 r["go"].get<std::string>().c_str(), r["done"].get<std::string>().c_str());
  }
}

void print_clock_table(std::FILE* out, const Json& header, const std::vector<Json>& records) {
  heading(out, "clock", header);
  for (const Json& r : records) {
    if (r.value("record", "") == "clock_batch")
      std::fprintf(out, "rank %d batch %d (%s) at %6.2f s: %zu samples, half-interval median %s ns, best %s ns\n",
                   r.value("rank", 0), r["batch"].get<int>(), r["role"].get<std::string>().c_str(),
                   r["at_s"].get<double>(), r["device_start"]["values"].size(),
                   ns(r["half_interval_ns"], "median").c_str(), ns(r["half_interval_ns"], "min").c_str());
    if (r.value("record", "") != "clock_fit") continue;
    const Json& c = r["check"];
    std::fprintf(out,
                 "rank %d fit over %.2f s, %zu of %zu samples (shortest round trips): host_ns = %.3f + %.9f * (ticks - %llu)\n"
                 "  drift %.3f ppm against the %s (%.6g ns/tick); offset (thesis Eq. 4.1) %.6g ns\n"
                 "  precision (median half round trip) %.1f ns, best %.1f ns; residuals rms %.1f ns, max |%.1f| ns\n"
                 "  check %.1f s after the last fitted batch: predicted - measured = %.1f ns, its precision %.1f ns: %s\n",
                 r.value("rank", 0), r["span_s"].get<double>(), r["samples_used"].get<std::size_t>(),
                 r["samples_total"].get<std::size_t>(), r["mapping"]["host_ref_ns"].get<double>(),
                 r["mapping"]["ns_per_tick"].get<double>(),
                 static_cast<unsigned long long>(r["mapping"]["device_ref_ticks"].get<std::uint64_t>()),
                 r["drift_ppm"].get<double>(), r["drift_reference"].get<std::string>().c_str(),
                 r["reference_ns_per_tick"].get<double>(), r["offset_ns"].get<double>(),
                 r["precision_ns"].get<double>(), r["best_precision_ns"].get<double>(),
                 r["residual_rms_ns"].get<double>(), r["residual_max_abs_ns"].get<double>(),
                 c["after_last_fit_batch_s"].get<double>(), -c["error_ns"].get<double>(),
                 c["precision_ns"].get<double>(), c["within_precision"].get<bool>() ? "within" : "NOT within");
  }
}

}  // namespace hetprobe
