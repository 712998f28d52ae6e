// Load kinds by name, and the host backend's simulated devices.
#include <gtest/gtest.h>

#include <cstdlib>

#include "bench/core/errors.hpp"
#include "probes/load/load_engine.hpp"

namespace hetprobe {
namespace {

TEST(HostDevices, TheHostBackendPresentsAsManyDevicesAsAsked) {
  ::setenv("HETPROBE_HOST_DEVICES", "3", 1);
  auto last = open_device("host", 2);
  EXPECT_EQ(last->info().ordinal, 2);
  EXPECT_THROW(open_device("host", 3), Error);
  ::setenv("HETPROBE_HOST_DEVICES", "zero", 1);
  EXPECT_THROW(open_device("host", 0), Error);
  ::unsetenv("HETPROBE_HOST_DEVICES");
  EXPECT_EQ(open_device("host", 0)->info().ordinal, 0);
}

TEST(LoadKinds, NamesRoundTripAndUnknownOnesAreUsageErrors) {
  for (LoadKind k :
       {LoadKind::none, LoadKind::write, LoadKind::read, LoadKind::poll, LoadKind::copy_d2h, LoadKind::copy_h2d})
    EXPECT_EQ(parse_load_kind(to_string(k)), k);
  try {
    parse_load_kind("scribble");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage);
    EXPECT_NE(std::string(e.what()).find("scribble"), std::string::npos);
  }
}

}  // namespace
}  // namespace hetprobe
