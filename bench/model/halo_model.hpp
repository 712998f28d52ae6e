// The halo exchange's lower-bound model (paper 002 Sec. 6.4, Eqs. 1-4). Units throughout: seconds,
// bytes, bytes per second (the paper states none; these make its parameters consistent).
//
//   Eq. 1  T = SP + T_comm + LUP         SP: pack time of the shortest message (the 24 B vertex),
//                                        LUP: unpack time of the longest (face) message; the other
//                                        packs overlap communication, the short unpacks overlap LUP;
//                                        with memcpy staging (not the paper's) LUP also holds that
//                                        message's copy to device memory before its unpack
//   Eq. 2  t(n) = alpha + beta * n       postal model, used for intra-socket messages
//   Eq. 3  t(n) = alpha + (K_inter/K_total) * k' * n * beta      inter-socket and inter-node (K-model,
//   Eq. 4  beta = 1 / (R_Cb + ((K_inter/K_total) * k' - 1) * R_Ci)   Choi et al. ICS'20)
//
// K_inter: messages a rank sends off node (24 of 26 in the paper), K_total: all its messages,
// k': processes communicating per node (4, the GPUs per node), R_Cb / R_Ci: the model's two rates.
// The paper's parameters give beta = 3.637e-11 s/B inter-socket, 8.977e-11 inter-node eager and
// 1.288e-11 inter-node rendezvous. It neglects notification overheads, hence "lower bound".
#pragma once

#include <vector>

#include "bench/core/results.hpp"

namespace hetprobe {

// Eq. 2: t(n) = alpha + beta * n.
struct PostalModel {
  double alpha_s = 0;          // latency, s
  double beta_s_per_byte = 0;  // inverse bandwidth, s/B
};

// t(n) of Eq. 2. Usage error for a negative byte count or a non-finite value; a negative alpha or
// beta is accepted, since fit_postal may report one for noisy data.
double postal_time_s(const PostalModel& m, double bytes);

// Eqs. 3 and 4.
struct KModel {
  double alpha_s = 0;           // latency, s
  double r_cb_bytes_per_s = 0;  // R_Cb, B/s
  double r_ci_bytes_per_s = 0;  // R_Ci, B/s
  int k_inter = 0;              // messages per rank that leave the node
  int k_total = 0;              // messages per rank
  int k_prime = 1;              // processes communicating per node
};

// (K_inter / K_total) * k', the factor on n in Eq. 3 and in Eq. 4 (3.6923 in the paper).
// Usage errors: K_total < 1, k' < 1, K_inter < 0 or > K_total, rates <= 0, alpha < 0 (or any
// value not finite), and an Eq. 4 denominator <= 0 (for beta and the time).
double kmodel_factor(const KModel& m);
double kmodel_beta(const KModel& m);                  // Eq. 4, s/B
double kmodel_time_s(const KModel& m, double bytes);  // Eq. 3, s; usage error for bytes < 0

// Eq. 1, s. Usage error for a negative or non-finite time.
struct LowerBound {
  double pack_smallest_s = 0;   // SP
  double comm_s = 0;            // T_comm
  double copy_largest_s = 0;    // LUP's copy to device memory (memcpy staging; else 0)
  double unpack_largest_s = 0;  // LUP's unpack
  double total_s = 0;           // SP + T_comm + LUP
};
LowerBound lower_bound(double pack_smallest_s, double comm_s, double unpack_largest_s, double copy_largest_s = 0);

// Least-squares line through (bytes, seconds) points (weighted, centered sums, so large sizes do
// not cost precision). `FitError::absolute` minimises the squared errors in seconds (the halo
// probe's few sizes); `relative` the squared errors relative to each time (weights 1/t^2), so a
// sweep from 1 KiB to 16 MiB fits its small sizes as well as its large ones (the node model).
// Usage errors: different lengths, fewer than 2 distinct sizes, negative or non-finite values,
// a zero time with `relative`. alpha is reported as fitted, even when tiny or slightly negative.
enum class FitError { absolute, relative };
PostalModel fit_postal(const std::vector<double>& bytes, const std::vector<double>& seconds,
                       FitError error = FitError::absolute);

// Each with the units in its field names; the K-model adds its derived factor and beta (so it
// throws the usage errors of kmodel_beta for invalid parameters).
Json to_json(const PostalModel& m);
Json to_json(const KModel& m);
Json to_json(const LowerBound& b);

}  // namespace hetprobe
