#include "bench/halo/halo_phases.hpp"

#include <algorithm>
#include <utility>

#include "base/stats.hpp"

namespace hetprobe {

namespace {

// The phases in the order records list them.
using Phase = std::optional<double> HaloCriticalPath::*;
constexpr std::pair<const char*, Phase> kPhases[] = {{"total", &HaloCriticalPath::total},
                                                     {"pack_start", &HaloCriticalPath::pack_start},
                                                     {"pack_end", &HaloCriticalPath::pack_end},
                                                     {"last_send", &HaloCriticalPath::last_send},
                                                     {"largest_received", &HaloCriticalPath::largest_received},
                                                     {"largest_unpack_start", &HaloCriticalPath::largest_unpack_start},
                                                     {"unpack_end", &HaloCriticalPath::unpack_end},
                                                     {"largest_unpack", &HaloCriticalPath::largest_unpack},
                                                     {"last_recv_copy_end", &HaloCriticalPath::last_recv_copy_end}};

std::optional<double> lowest(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  return *std::min_element(v.begin(), v.end());
}

std::optional<double> highest(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  return *std::max_element(v.begin(), v.end());
}

// Per message, the median over the iterations of end - start (`count` messages).
std::vector<double> median_gaps(const HaloRun& run, std::size_t count, std::vector<double> HaloIteration::* end,
                                std::vector<double> HaloIteration::* start) {
  std::vector<double> out;
  for (std::size_t i = 0; i < count; ++i) {
    std::vector<double> gaps;
    for (const HaloIteration& it : run.iterations)
      if (i < (it.*end).size() && i < (it.*start).size()) gaps.push_back((it.*end)[i] - (it.*start)[i]);
    if (gaps.empty()) return {};
    out.push_back(summarize(gaps).median);
  }
  return out;
}

}  // namespace

Json gbs_json(std::uint64_t bytes, double ns) {
  return ns > 0 ? Json(static_cast<double>(bytes) / ns) : Json(nullptr);  // B/ns = GB/s
}

HaloCopyMedians copy_medians(const HaloRun& run) {
  if (run.setup.staging != HaloStaging::memcpy || run.iterations.empty()) return {};
  const HaloIteration& first = run.iterations.front();
  return {median_gaps(run, first.copy_end_ns.size(), &HaloIteration::copy_end_ns, &HaloIteration::pack_end_ns),
          median_gaps(run, first.recv_copy_end_ns.size(), &HaloIteration::recv_copy_end_ns, &HaloIteration::recv_ns)};
}

HaloCriticalPath critical_path(const HaloIteration& it, const HaloLayout& layout) {
  HaloCriticalPath p;
  p.total = it.total_ns;
  p.pack_start = lowest(it.pack_start_ns);
  p.pack_end = highest(it.pack_end_ns);
  p.last_send = highest(it.send_ns);
  p.unpack_end = highest(it.unpack_end_ns);
  p.last_recv_copy_end = highest(it.recv_copy_end_ns);
  const std::size_t nr = std::min({layout.recvs.size(), it.recv_ns.size(), it.unpack_start_ns.size(),
                                   it.unpack_end_ns.size()});
  if (nr == 0) return p;
  std::uint64_t largest = 0;
  for (std::size_t i = 0; i < nr; ++i) largest = std::max(largest, layout.recvs[i].bytes);
  std::size_t last = nr;  // the last of the largest receives to arrive (the first of equals)
  double unpack_sum = 0;
  int count = 0;
  for (std::size_t i = 0; i < nr; ++i) {
    if (layout.recvs[i].bytes != largest) continue;
    if (last == nr || it.recv_ns[i] > it.recv_ns[last]) last = i;
    unpack_sum += it.unpack_end_ns[i] - it.unpack_start_ns[i];
    ++count;
  }
  p.largest_received = it.recv_ns[last];
  p.largest_unpack_start = it.unpack_start_ns[last];
  p.largest_unpack = unpack_sum / count;
  return p;
}

std::optional<HaloBusy> busy_time(const HaloRun& run, const std::vector<HaloMessage>& msgs, HaloSpan span,
                                  std::uint64_t min_bytes) {
  using Times = std::vector<double> HaloIteration::*;
  const auto [start_of, end_of] = [span]() -> std::pair<Times, Times> {
    switch (span) {
      case HaloSpan::pack: return {&HaloIteration::pack_start_ns, &HaloIteration::pack_end_ns};
      case HaloSpan::unpack: return {&HaloIteration::unpack_start_ns, &HaloIteration::unpack_end_ns};
      case HaloSpan::copy_to_host: return {&HaloIteration::copy_start_ns, &HaloIteration::copy_end_ns};
      case HaloSpan::copy_to_device: break;
    }
    return {&HaloIteration::recv_ns, &HaloIteration::recv_copy_end_ns};
  }();
  HaloBusy busy;
  std::vector<std::size_t> long_ones;
  for (std::size_t i = 0; i < msgs.size(); ++i)
    if (msgs[i].bytes >= min_bytes) {
      long_ones.push_back(i);
      ++busy.messages;
      busy.bytes += msgs[i].bytes;
    }
  std::vector<double> per_iteration;
  for (const HaloIteration& it : run.iterations) {
    const std::vector<double>&starts = it.*start_of, &ends = it.*end_of;
    std::vector<std::pair<double, double>> spans;
    for (std::size_t i : long_ones)
      if (i < starts.size() && i < ends.size()) spans.emplace_back(starts[i], ends[i]);
    if (spans.empty()) continue;
    std::sort(spans.begin(), spans.end());
    double total = 0, from = spans[0].first, to = spans[0].second;
    for (const auto& [start, end] : spans) {
      if (start > to) {
        total += to - from;
        from = start;
      }
      to = std::max(to, end);
    }
    per_iteration.push_back(total + (to - from));
  }
  if (per_iteration.empty()) return std::nullopt;
  busy.busy_ns_median = summarize(per_iteration).median;
  return busy;
}

Json to_json(const std::optional<HaloBusy>& busy, std::uint64_t min_bytes) {
  if (!busy) return nullptr;
  return {{"min_bytes", min_bytes},
          {"messages", busy->messages},
          {"bytes", busy->bytes},
          {"busy_ns_median", busy->busy_ns_median},
          {"gbs_median", gbs_json(busy->bytes, busy->busy_ns_median)}};
}

Json to_json(const HaloCriticalPath& path) {
  Json out = Json::object();
  for (const auto& [name, phase] : kPhases) out[name] = json_or_null(path.*phase);
  return out;
}

Json median_json(const std::vector<HaloCriticalPath>& paths) {
  Json out = Json::object();
  for (const auto& [name, phase] : kPhases) {
    std::vector<double> values;
    for (const HaloCriticalPath& p : paths)
      if (p.*phase) values.push_back(*(p.*phase));
    out[name] = values.empty() ? Json(nullptr) : Json(summarize(values).median);
  }
  return out;
}

}  // namespace hetprobe
