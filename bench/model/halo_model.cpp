#include "bench/model/halo_model.hpp"

#include <cmath>
#include <set>
#include <sstream>
#include <string>

#include "base/errors.hpp"

namespace hetprobe {
namespace {

std::string number(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

// Times, sizes and latencies must be finite and >= 0.
void check_non_negative(double v, const char* what) {
  if (!std::isfinite(v) || v < 0) throw usage_error(std::string(what) + " " + number(v) + " must be >= 0");
}

void check_positive(double v, const char* what) {
  if (!std::isfinite(v) || v <= 0) throw usage_error(std::string(what) + " " + number(v) + " must be > 0");
}

void check_finite(double v, const char* what) {
  if (!std::isfinite(v)) throw usage_error(std::string(what) + " " + number(v) + " is not finite");
}

// Only finite: a fitted alpha (or beta) of noisy data may come out slightly negative.
void check_postal(const PostalModel& m) {
  check_finite(m.alpha_s, "postal model: alpha_s");
  check_finite(m.beta_s_per_byte, "postal model: beta_s_per_byte");
}

}  // namespace

double postal_time_s(const PostalModel& m, double bytes) {
  check_postal(m);
  check_non_negative(bytes, "postal model: message bytes");
  return m.alpha_s + m.beta_s_per_byte * bytes;
}

double kmodel_factor(const KModel& m) {
  if (m.k_total < 1) throw usage_error("K-model: K_total " + std::to_string(m.k_total) + " must be >= 1");
  if (m.k_prime < 1) throw usage_error("K-model: k' " + std::to_string(m.k_prime) + " must be >= 1");
  if (m.k_inter < 0 || m.k_inter > m.k_total) {
    throw usage_error("K-model: K_inter " + std::to_string(m.k_inter) + " must be in [0, K_total " +
                      std::to_string(m.k_total) + "]");
  }
  return static_cast<double>(m.k_inter) / m.k_total * m.k_prime;
}

double kmodel_beta(const KModel& m) {
  const double f = kmodel_factor(m);
  check_non_negative(m.alpha_s, "K-model: alpha_s");
  check_positive(m.r_cb_bytes_per_s, "K-model: R_Cb (bytes/s)");
  check_positive(m.r_ci_bytes_per_s, "K-model: R_Ci (bytes/s)");
  // With f < 1 (few off-node messages) a large R_Ci can make the rate sum non-positive.
  const double rate = m.r_cb_bytes_per_s + (f - 1) * m.r_ci_bytes_per_s;
  if (!(rate > 0)) {
    throw usage_error("K-model: R_Cb + (K_inter/K_total*k' - 1)*R_Ci = " + number(rate) + " <= 0");
  }
  return 1 / rate;
}

double kmodel_time_s(const KModel& m, double bytes) {
  const double beta = kmodel_beta(m);
  check_non_negative(bytes, "K-model: message bytes");
  return m.alpha_s + kmodel_factor(m) * bytes * beta;
}

LowerBound lower_bound(double pack_smallest_s, double comm_s, double unpack_largest_s, double copy_largest_s) {
  check_non_negative(pack_smallest_s, "lower bound: pack time (SP, s)");
  check_non_negative(comm_s, "lower bound: communication time (s)");
  check_non_negative(unpack_largest_s, "lower bound: unpack time (LUP, s)");
  check_non_negative(copy_largest_s, "lower bound: copy time (part of LUP, s)");
  return {pack_smallest_s, comm_s, copy_largest_s, unpack_largest_s,
          pack_smallest_s + comm_s + copy_largest_s + unpack_largest_s};
}

PostalModel fit_postal(const std::vector<double>& bytes, const std::vector<double>& seconds, FitError error) {
  if (bytes.size() != seconds.size()) {
    throw usage_error("postal fit: " + std::to_string(bytes.size()) + " sizes but " + std::to_string(seconds.size()) +
                      " times");
  }
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    check_non_negative(bytes[i], "postal fit: message bytes");
    check_non_negative(seconds[i], "postal fit: time (s)");
    if (error == FitError::relative && !(seconds[i] > 0))
      throw usage_error("postal fit: a time of 0 s has no relative error");
  }
  if (std::set<double>(bytes.begin(), bytes.end()).size() < 2) {
    throw usage_error("postal fit: needs at least 2 distinct message sizes");
  }
  std::vector<double> w(bytes.size(), 1.0);
  if (error == FitError::relative)
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = 1 / (seconds[i] * seconds[i]);
  double sw = 0, mean_b = 0, mean_t = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) sw += w[i];
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    mean_b += w[i] * bytes[i] / sw;
    mean_t += w[i] * seconds[i] / sw;
  }
  double sbb = 0, sbt = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    sbb += w[i] * (bytes[i] - mean_b) * (bytes[i] - mean_b);
    sbt += w[i] * (bytes[i] - mean_b) * (seconds[i] - mean_t);
  }
  const double beta = sbt / sbb;
  return {mean_t - beta * mean_b, beta};
}

Json to_json(const PostalModel& m) { return Json{{"alpha_s", m.alpha_s}, {"beta_s_per_byte", m.beta_s_per_byte}}; }

Json to_json(const KModel& m) {
  return Json{{"alpha_s", m.alpha_s},
              {"r_cb_bytes_per_s", m.r_cb_bytes_per_s},
              {"r_ci_bytes_per_s", m.r_ci_bytes_per_s},
              {"k_inter", m.k_inter},
              {"k_total", m.k_total},
              {"k_prime", m.k_prime},
              {"factor", kmodel_factor(m)},
              {"beta_s_per_byte", kmodel_beta(m)}};
}

Json to_json(const LowerBound& b) {
  return Json{{"pack_smallest_s", b.pack_smallest_s},
              {"comm_s", b.comm_s},
              {"copy_largest_s", b.copy_largest_s},
              {"unpack_largest_s", b.unpack_largest_s},
              {"total_s", b.total_s}};
}

}  // namespace hetprobe
