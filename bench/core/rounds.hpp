// Rounds: every configuration of a comparison visited once per round, in a
// seeded shuffled order, so that a transient falls on one round and not on
// one configuration (interference's points of a size, the node's GPUs).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "bench/core/mpi_context.hpp"
#include "bench/core/results.hpp"

namespace hetprobe {

// The order of round `round` of `count` items: a permutation of 0..count-1,
// the same on every rank and every build for the same seed and stream (the
// interference probe's stream is the message size).
std::vector<std::size_t> round_order(std::uint64_t seed, std::uint64_t stream, int round, std::size_t count);

// Per round 0..count-1: the median of the values measured in it (`rounds`
// holds each value's round; NaN for a round without one).
std::vector<double> round_medians(std::span<const double> values, std::span<const int> rounds, int count);

// Round by round, `num`'s median over `den`'s (null for a round without
// either); `ratios` gets the defined ones: the paired ratios a comparison's
// median and interval come from.
Json paired_rounds(const std::vector<double>& num, const std::vector<double>& den, std::vector<double>& ratios);

// Round medians as JSON: null for a round without a value.
Json round_medians_json(const std::vector<double>& medians);

// --seed: a whole number in [0, 2^64); a usage Error naming the option otherwise.
std::uint64_t parse_seed(const std::string& text);

// Rank 0's random seed on every rank (collective): for a run given no --seed.
std::uint64_t shared_random_seed(const MpiContext& mpi);

}  // namespace hetprobe
