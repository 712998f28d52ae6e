// What makes runs launches of one command (issue 37: one rule for `show
// --pool` and Python's pooling): host, backend, device, binding and config,
// less the seed each launch draws and the STREAM only the first measures.
#include <gtest/gtest.h>

#include "bench/core/launches.hpp"

namespace hetprobe {
namespace {

Json header() {
  return Json::parse(R"({"record":"header","probe":"interference","host":"n1","backend":"cuda",
    "device":{"name":"NVIDIA H100","pci_bus_id":"0000:01:00.0"},
    "ranks":[{"rank":0,"placement":{"bind":"near-gpu","cpus":"0"}},{"rank":1,"placement":{"bind":"near-gpu"}}],
    "config":{"rounds":10,"reps":8,"sizes_bytes":[1024],"seed":7,"host_stream":true}})");
}

TEST(LaunchIdentity, LaunchesOfOneCommandDifferOnlyInSeedAndStream) {
  Json other = header();
  other["config"]["seed"] = 8;
  other["config"].erase("host_stream");
  other["device"]["pci_bus_id"] = "0000:02:00.0";  // the device's name is what a launch shares
  EXPECT_EQ(launch_identity(header()), launch_identity(other));
  EXPECT_FALSE(launch_difference(header(), other));
  // The order a file wrote its keys in does not matter.
  const Json reordered = Json::parse(R"({"config":{"sizes_bytes":[1024],"reps":8,"rounds":10},"backend":"cuda",
    "host":"n1","device":{"name":"NVIDIA H100"},
    "ranks":[{"placement":{"bind":"near-gpu"}},{"placement":{"bind":"near-gpu"}}]})");
  EXPECT_FALSE(launch_difference(header(), reordered));
  EXPECT_EQ(launch_identity(header()).dump(), launch_identity(reordered).dump());
}

TEST(LaunchIdentity, TheFirstDifferenceIsNamed) {
  Json sizes = header();
  sizes["config"]["sizes_bytes"] = Json::array({1024, 2048});
  const auto d = launch_difference(header(), sizes);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->part, "config.sizes_bytes");
  EXPECT_EQ(d->in_a, Json::array({1024}));
  EXPECT_EQ(d->in_b, Json::array({1024, 2048}));
  Json device = header();
  device["device"]["name"] = "NVIDIA H200";
  EXPECT_EQ(launch_difference(header(), device).value().part, "device");
  Json bind = header();
  bind["ranks"][1]["placement"]["bind"] = "none";
  EXPECT_EQ(launch_difference(header(), bind).value().part, "bind");
  Json missing = header();
  missing.erase("config");
  EXPECT_EQ(launch_difference(header(), missing).value().part, "config");
  EXPECT_TRUE(launch_identity(Json::parse("[1]"))["config"].is_null());  // not a header: nulls, no throw
}

}  // namespace
}  // namespace hetprobe
