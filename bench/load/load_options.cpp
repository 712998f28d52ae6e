#include "bench/load/load_options.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "base/errors.hpp"
#include "base/text_list.hpp"
#include "bench/core/sizes.hpp"
#include "probes/load/load_names.hpp"

namespace hetprobe {

namespace {

// 100 TB/s: far above any link between a GPU and host memory; a larger rate is a typing mistake.
constexpr double kMaxRateGbs = 100'000;

// A whole, finite decimal number, or nothing.
bool parse_number(const std::string& text, double& out) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && std::isfinite(out);
}

bool parse_count(const std::string& text, int& out) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && out >= 0;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

std::vector<LoadKind> parse_load_kinds(const std::string& text) {
  const std::vector<LoadKind> out = kLoadKindNames.parse_list(text);
  if (out.size() > 1 && std::find(out.begin(), out.end(), LoadKind::none) != out.end())
    throw usage_error("--load none means no load at all: it cannot be listed with other kinds");
  return out;
}

LoadRate parse_load_rate(const std::string& item) {
  LoadRate r{item};
  double x = 0;
  if (ends_with(item, "GB/s")) {
    if (!parse_number(item.substr(0, item.size() - 4), x) || !(x > 0) || x > kMaxRateGbs)
      throw usage_error("--load-rate " + item + ": a rate in GB/s must be a number above 0 and at most " +
                        std::to_string(static_cast<int>(kMaxRateGbs)) + ", e.g. 12GB/s");
    r.gbs = x;
  } else {
    const bool percent = ends_with(item, "%");
    if (!parse_number(percent ? item.substr(0, item.size() - 1) : item, x))
      throw usage_error("--load-rate '" + item +
                        "': expected a fraction of the full rate (0.5, 50%) or a rate "
                        "such as 12GB/s");
    if (percent) x /= 100;
    if (!(x > 0 && x <= 1))
      throw usage_error("--load-rate " + item + ": a fraction of the full rate must be above 0 and at most 1");
    r.fraction = x;
  }
  return r;
}

std::string load_label(std::string_view kind, int gpus, const std::optional<LoadRate>& rate, bool brief) {
  std::string s{kind};
  if (!brief || gpus != 1) s += " x" + std::to_string(gpus);
  if (rate && !rate->full()) s += " @" + rate->label;
  return s;
}

std::vector<LoadRate> parse_load_rates(const std::string& text) {
  std::vector<LoadRate> out;
  for (const std::string& item : split_list(text, "--load-rate")) {
    const LoadRate r = parse_load_rate(item);
    if (std::find(out.begin(), out.end(), r) != out.end()) throw usage_error("load rate " + item + " is listed twice");
    out.push_back(r);
  }
  return out;
}

std::vector<int> parse_load_gpu_counts(const std::string& text, int available) {
  auto count = [&](const std::string& item, const std::string& whole) {
    int n = 0;
    if (item == "all") return available;
    if (!parse_count(item, n))
      throw usage_error("--load-gpus '" + whole + "': expected counts (0, 2), all, or a range such as 0:all");
    if (n > available)
      throw usage_error("--load-gpus " + whole + ": this node has " + std::to_string(available) + " GPU(s), " +
                        std::to_string(n) + " asked");
    return n;
  };
  std::vector<int> out;
  for (const std::string& item : split_list(text, "--load-gpus")) {
    const std::size_t colon = item.find(':');
    if (colon == std::string::npos) {
      out.push_back(count(item, text));
      continue;
    }
    const int lo = count(item.substr(0, colon), text), hi = count(item.substr(colon + 1), text);
    if (lo > hi) throw usage_error("--load-gpus " + text + ": the range " + item + " runs backwards");
    for (int n = lo; n <= hi; ++n) out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<int> load_device_order(const std::string& text, int own_ordinal, int available) {
  std::vector<int> out;
  if (text.empty()) {
    out.push_back(own_ordinal);
    for (int d = 0; d < available; ++d)
      if (d != own_ordinal) out.push_back(d);
    return out;
  }
  for (const std::string& item : split_list(text, "--load-devices")) {
    int d = 0;
    if (!parse_count(item, d) || d >= available)
      throw usage_error("--load-devices " + text + ": '" + item + "' is not a device of this node (0 to " +
                        std::to_string(available - 1) + ")");
    if (std::find(out.begin(), out.end(), d) != out.end())
      throw usage_error("--load-devices " + text + ": device " + item + " is listed twice");
    out.push_back(d);
  }
  return out;
}

std::string LoadBytes::label() const {
  if (message) return "message";  // the option's own word: parse_load_bytes reads it back
  return bytes ? std::to_string(bytes) : "auto";
}

LoadBytes parse_load_bytes(const std::string& text) {
  if (text == "auto") return {};
  if (text == "message") return {true, 0};
  return {false, parse_size(text)};
}

std::uint64_t auto_load_bytes(std::uint64_t largest_message) {
  return std::max<std::uint64_t>(256ull << 20, 8 * largest_message);
}

}  // namespace hetprobe
