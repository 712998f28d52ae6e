#include "base/effect.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace hetprobe {

namespace {

// Student's t 0.975 quantile for 1..30 degrees of freedom (standard tables);
// past 30 the normal's 1.96 is within 2%.
double t975(std::size_t df) {
  static constexpr double kTable[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  return df >= 1 && df <= 30 ? kTable[df - 1] : 1.96;
}

}  // namespace

Effect classify_ratio(const Interval& ci) {
  if (ci.low > 1 + kEffectMargin) return Effect::slowdown;
  if (ci.high < 1 - kEffectMargin) return Effect::speedup;
  return Effect::none;
}

Effect classify_speedup(const Interval& ci95) { return classify_ratio({1 / ci95.high, 1 / ci95.low}); }

namespace {

std::vector<double> log_ratios(const std::vector<double>& ratios) {
  if (ratios.empty()) throw std::invalid_argument("no launches to pool");
  std::vector<double> logs;
  for (double r : ratios) {
    if (!(r > 0) || !std::isfinite(r)) throw std::invalid_argument("a ratio to pool is not a finite number above 0");
    logs.push_back(std::log(r));
  }
  return logs;
}

double sum_of_squares(const std::vector<double>& x, double mean) {
  double ss = 0;
  for (double v : x) ss += (v - mean) * (v - mean);
  return ss;
}

}  // namespace

std::vector<PooledRatio> pool_launch_points(const std::vector<std::vector<double>>& points) {
  std::vector<std::vector<double>> logs;
  double pooled_ss = 0;
  std::size_t pooled_df = 0;
  for (const auto& ratios : points) {
    logs.push_back(log_ratios(ratios));
    const Summary s = summarize(logs.back());
    pooled_ss += sum_of_squares(logs.back(), s.mean);
    pooled_df += logs.back().size() - 1;
  }
  std::vector<PooledRatio> out;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::vector<double>& ratios = points[i];
    PooledRatio p;
    p.launches = ratios.size();
    p.median = summarize(ratios).median;
    p.min = *std::min_element(ratios.begin(), ratios.end());
    p.max = *std::max_element(ratios.begin(), ratios.end());
    if (ratios.size() >= 3) {
      const Summary own = summarize(logs[i]);
      const double pooled_sd = std::sqrt(pooled_ss / static_cast<double>(pooled_df));
      // A point noisier than the pool keeps its own spread and degrees of freedom:
      // borrowing never narrows a noisy point's interval.
      const bool own_wider = own.stddev > pooled_sd;
      const double sd = own_wider ? own.stddev : pooled_sd;
      p.degrees_of_freedom = own_wider ? ratios.size() - 1 : pooled_df;
      const double half = t975(p.degrees_of_freedom) * sd / std::sqrt(static_cast<double>(ratios.size()));
      const double mean = own.mean;
      p.ci95 = Interval{std::exp(mean - half), std::exp(mean + half)};
    }
    out.push_back(p);
  }
  return out;
}

PooledRatio pool_launch_ratios(const std::vector<double>& ratios) { return pool_launch_points({ratios}).front(); }

}  // namespace hetprobe
