// Rounds: every configuration of a comparison visited once per round, in a
// seeded shuffled order, so that a transient falls on one round and not on
// one configuration (interference's points of a size, the node's GPUs).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bench/core/mpi_context.hpp"

namespace hetprobe {

// The order of round `round` of `count` items: a permutation of 0..count-1,
// the same on every rank and every build for the same seed and stream (the
// interference probe's stream is the message size).
std::vector<std::size_t> round_order(std::uint64_t seed, std::uint64_t stream, int round, std::size_t count);

// --seed: a whole number in [0, 2^64); a usage Error naming the option otherwise.
std::uint64_t parse_seed(const std::string& text);

// Rank 0's random seed on every rank (collective): for a run given no --seed.
std::uint64_t shared_random_seed(const MpiContext& mpi);

}  // namespace hetprobe
