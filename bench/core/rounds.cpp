#include "bench/core/rounds.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <random>
#include <utility>

#include "base/errors.hpp"
#include "base/stats.hpp"

namespace hetprobe {

std::vector<double> round_medians(std::span<const double> values, std::span<const int> rounds, int count) {
  std::vector<std::vector<double>> by_round(static_cast<std::size_t>(std::max(count, 0)));
  for (std::size_t i = 0; i < values.size() && i < rounds.size(); ++i)
    if (rounds[i] >= 0 && rounds[i] < count) by_round[static_cast<std::size_t>(rounds[i])].push_back(values[i]);
  std::vector<double> out;
  for (const auto& v : by_round) out.push_back(v.empty() ? std::nan("") : summarize(v).median);
  return out;
}

Json paired_rounds(const std::vector<double>& num, const std::vector<double>& den, std::vector<double>& ratios) {
  Json per_round = Json::array();
  for (std::size_t k = 0; k < num.size() && k < den.size(); ++k) {
    const bool ok = !std::isnan(num[k]) && den[k] > 0;
    if (ok) ratios.push_back(num[k] / den[k]);
    per_round.push_back(ok ? Json(num[k] / den[k]) : Json(nullptr));
  }
  return per_round;
}

Json round_medians_json(const std::vector<double>& medians) {
  Json j = Json::array();
  for (double x : medians) j.push_back(std::isnan(x) ? Json(nullptr) : Json(x));
  return j;
}

std::vector<std::size_t> round_order(std::uint64_t seed, std::uint64_t stream, int round, std::size_t count) {
  std::vector<std::size_t> order(count);
  for (std::size_t i = 0; i < count; ++i) order[i] = i;
  // splitmix64 of the seed, stream and round: a stream of its own per round.
  std::uint64_t state = seed ^ (stream * 0x9E3779B97F4A7C15ull) ^ (static_cast<std::uint64_t>(round) << 32);
  auto next = [&state] {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  // Fisher-Yates, drawing j in [0, i] by multiply-shift: the same on every
  // platform (std::shuffle's draws are the standard library's own).
  for (std::size_t i = count; i > 1; --i) {
    const auto j = static_cast<std::size_t>((static_cast<unsigned __int128>(next()) * i) >> 64);
    std::swap(order[i - 1], order[j]);
  }
  return order;
}

std::uint64_t parse_seed(const std::string& text) {
  std::uint64_t seed = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (ec != std::errc() || ptr != text.data() + text.size())
    throw usage_error("--seed '" + text + "': expected a whole number from 0 to 18446744073709551615");
  return seed;
}

std::uint64_t shared_random_seed(const MpiContext& mpi) {
  unsigned long long seed = 0;
  if (mpi.rank == 0) seed = (static_cast<unsigned long long>(std::random_device{}()) << 32) ^ std::random_device{}();
  mpi_check(MPI_Bcast(&seed, 1, MPI_UNSIGNED_LONG_LONG, 0, mpi.comm), "MPI_Bcast");
  return seed;
}

}  // namespace hetprobe
