// Unit tests for the halo-exchange lower-bound model: the numbers derived in the seed digest
// (R6) from the paper's parameters (002 Sec. 6.4, Tables 3 and R6), to their printed precision.
#include "bench/model/halo_model.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "base/errors.hpp"
#include "tests/unit/expect_usage_error.hpp"

namespace hetprobe {
namespace {

// K_inter = 24 of K_total = 26 messages leave the node; k' = 4 GPUs per node.
KModel paper_kmodel(double alpha_s, double r_cb, double r_ci) { return {alpha_s, r_cb, r_ci, 24, 26, 4}; }
const KModel kInterSocket = paper_kmodel(3.41e-6, 8.41e9, 7.09e9);
const KModel kEager = paper_kmodel(2.36e-6, 4.92e9, 2.31e9);
const KModel kRendezvous = paper_kmodel(1.06e-5, 1.79e10, 2.22e10);
const PostalModel kIntraSocket{2.92e-6, 3.49e-11};

TEST(HaloModel, KModelBetaEq4) {
  EXPECT_NEAR(kmodel_factor(kEager), 24.0 / 26 * 4, 1e-12);
  EXPECT_NEAR(kmodel_beta(kInterSocket) / 3.637e-11, 1, 1e-3);
  EXPECT_NEAR(kmodel_beta(kEager) / 8.977e-11, 1, 1e-3);
  EXPECT_NEAR(kmodel_beta(kRendezvous) / 1.288e-11, 1, 1e-3);
}

TEST(HaloModel, SingleMessageTable) {
  // Digest R6: alpha + 3.6923 * n * beta (postal alpha + beta * n intra-socket), us to 0.01.
  struct Row {
    double bytes, intra, inter_socket, eager, rendezvous;
  };
  const std::vector<Row> table{{24, 2.92, 3.41, 2.37, 10.60},
                               {4800, 3.09, 4.05, 3.95, 10.83},
                               {60000, 5.01, 11.47, 22.25, 13.45},
                               {240000, 11.30, 35.64, 81.91, 22.01},
                               {960000, 36.42, 132.31, 320.57, 56.24}};
  constexpr double kHalfDigit = 0.005 + 1e-9;  // the printed value is the rounded one
  for (const Row& r : table) {
    SCOPED_TRACE(r.bytes);
    EXPECT_NEAR(postal_time_s(kIntraSocket, r.bytes) * 1e6, r.intra, kHalfDigit);
    EXPECT_NEAR(kmodel_time_s(kInterSocket, r.bytes) * 1e6, r.inter_socket, kHalfDigit);
    EXPECT_NEAR(kmodel_time_s(kEager, r.bytes) * 1e6, r.eager, kHalfDigit);
    EXPECT_NEAR(kmodel_time_s(kRendezvous, r.bytes) * 1e6, r.rendezvous, kHalfDigit);
  }
}

TEST(HaloModel, LowerBoundEq1) {
  // 200^3: SP = 1.75 us (24 B pack), LUP = 12.00 us (60000 B unpack), face message time.
  const LowerBound eager = lower_bound(1.75e-6, kmodel_time_s(kEager, 60000), 12.00e-6);
  EXPECT_NEAR(eager.comm_s * 1e6, 22.25, 0.005);
  EXPECT_NEAR(eager.total_s * 1e6, 36.0, 0.05);
  EXPECT_DOUBLE_EQ(eager.total_s, eager.pack_smallest_s + eager.comm_s + eager.unpack_largest_s);
  EXPECT_EQ(eager.copy_largest_s, 0);  // pinned staging: no copy
  EXPECT_NEAR(lower_bound(1.75e-6, kmodel_time_s(kRendezvous, 60000), 12.00e-6).total_s * 1e6, 27.2, 0.05);
  // 400^3 and 800^3 (LUP 30.40 and 105 us).
  EXPECT_NEAR(lower_bound(1.75e-6, kmodel_time_s(kEager, 240000), 30.40e-6).total_s * 1e6, 114.1, 0.05);
  EXPECT_NEAR(lower_bound(1.75e-6, kmodel_time_s(kRendezvous, 240000), 30.40e-6).total_s * 1e6, 54.2, 0.05);
  EXPECT_NEAR(lower_bound(1.75e-6, kmodel_time_s(kEager, 960000), 105e-6).total_s * 1e6, 427.3, 0.05);
  EXPECT_NEAR(lower_bound(1.75e-6, kmodel_time_s(kRendezvous, 960000), 105e-6).total_s * 1e6, 163.0, 0.05);
}

TEST(HaloModel, FitPostalRecoversExactLine) {
  const std::vector<double> bytes{24, 1200, 60000, 240000, 960000, 60000};
  std::vector<double> seconds;
  for (double n : bytes) seconds.push_back(kIntraSocket.alpha_s + kIntraSocket.beta_s_per_byte * n);
  const PostalModel fit = fit_postal(bytes, seconds);
  EXPECT_NEAR(fit.alpha_s / kIntraSocket.alpha_s, 1, 1e-9);
  EXPECT_NEAR(fit.beta_s_per_byte / kIntraSocket.beta_s_per_byte, 1, 1e-9);
  // A line through the origin: alpha comes out as fitted (~0, either sign), not clamped.
  const PostalModel zero = fit_postal({1e3, 1e6}, {1e-6, 1e-3});
  EXPECT_NEAR(zero.alpha_s, 0, 1e-15);
  EXPECT_NEAR(zero.beta_s_per_byte, 1e-9, 1e-21);
  EXPECT_NEAR(fit_postal({1, 2}, {3, 2}).alpha_s, 4, 1e-12);  // what the fit says, slope -1
}

TEST(HaloModel, BadInputs) {
  expect_usage_error([] { fit_postal({8, 8, 8}, {1e-6, 2e-6, 3e-6}); }, "2 distinct");
  expect_usage_error([] { fit_postal({8}, {1e-6}); }, "2 distinct");
  expect_usage_error([] { fit_postal({8, 16}, {1e-6}); }, "2 sizes but 1 times");
  expect_usage_error([] { fit_postal({8, 16}, {1e-6, -1e-6}); }, "time");
  KModel m = kEager;
  m.k_total = 0;
  expect_usage_error([&] { kmodel_beta(m); }, "K_total 0");
  m = kEager;
  m.k_prime = 0;
  expect_usage_error([&] { kmodel_beta(m); }, "k' 0");
  m = kEager;
  m.k_inter = 27;
  expect_usage_error([&] { kmodel_time_s(m, 8); }, "K_inter 27");
  m = kEager;
  m.r_cb_bytes_per_s = 0;
  expect_usage_error([&] { kmodel_beta(m); }, "R_Cb");
  m = kEager;
  m.r_ci_bytes_per_s = -1;
  expect_usage_error([&] { kmodel_beta(m); }, "R_Ci");
  m = kEager;
  m.alpha_s = -1e-6;
  expect_usage_error([&] { kmodel_time_s(m, 8); }, "alpha_s");
  m = kEager;
  m.k_inter = 0;  // factor 0: R_Cb - R_Ci = 4.92e9 - 2.31e9 still > 0
  EXPECT_DOUBLE_EQ(kmodel_time_s(m, 1e6), m.alpha_s);
  m.r_ci_bytes_per_s = 5e9;
  expect_usage_error([&] { kmodel_beta(m); }, "<= 0");
  expect_usage_error([] { kmodel_time_s(kEager, -1); }, "message bytes");
  expect_usage_error([] { postal_time_s(kIntraSocket, -1); }, "message bytes");
  expect_usage_error([] { lower_bound(-1e-6, 0, 0); }, "pack time");
  expect_usage_error([] { lower_bound(0, 0, -1e-6); }, "unpack time");
  expect_usage_error([] { lower_bound(0, 0, 0, -1e-6); }, "copy time");
}

TEST(HaloModel, Json) {
  EXPECT_EQ(to_json(kIntraSocket), Json::parse(R"({"alpha_s":2.92e-6,"beta_s_per_byte":3.49e-11})"));
  const Json k = to_json(kRendezvous);
  EXPECT_EQ(k["alpha_s"], 1.06e-5);
  EXPECT_EQ(k["r_cb_bytes_per_s"], 1.79e10);
  EXPECT_EQ(k["r_ci_bytes_per_s"], 2.22e10);
  EXPECT_EQ(k["k_inter"], 24);
  EXPECT_EQ(k["k_total"], 26);
  EXPECT_EQ(k["k_prime"], 4);
  EXPECT_NEAR(k["beta_s_per_byte"].get<double>() / 1.288e-11, 1, 1e-3);
  EXPECT_NEAR(k["factor"].get<double>(), 3.6923, 1e-4);
  const Json b = to_json(lower_bound(1, 2, 3));
  EXPECT_EQ(b, Json::parse(R"({"pack_smallest_s":1.0,"comm_s":2.0,"copy_largest_s":0.0,"unpack_largest_s":3.0,)"
                           R"("total_s":6.0})"));
  // memcpy staging: LUP is the largest receive's copy to the device and its unpack.
  EXPECT_EQ(to_json(lower_bound(1, 2, 3, 4))["total_s"], 10.0);
}

}  // namespace
}  // namespace hetprobe
