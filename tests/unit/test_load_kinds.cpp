// Load kinds by name, and the host backend's simulated devices.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "base/errors.hpp"
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

// HETPROBE_HOST_SLOW=ORDINAL:FACTOR: that device says so (its name and
// simulated_slowdown, both written into results headers); the others do not.
// (mpi.ranks_take_turns checks that its measurements really are slower.)
TEST(HostDevices, OneCanBeSlowedOnPurposeAndSaysSo) {
  ::setenv("HETPROBE_HOST_DEVICES", "3", 1);
  ::setenv("HETPROBE_HOST_SLOW", "1:2.5", 1);
  const auto slowed = open_device("host", 1);
  EXPECT_EQ(slowed->info().simulated_slowdown, 2.5);
  EXPECT_NE(slowed->info().name.find(" (slowed x2.5 by HETPROBE_HOST_SLOW)"), std::string::npos);
  for (int other : {0, 2}) {
    const auto device = open_device("host", other);
    EXPECT_EQ(device->info().simulated_slowdown, 1);
    EXPECT_EQ(device->info().name.find("slowed"), std::string::npos);
  }
  for (const char* bad : {"1", "1:1", "1:0.5", "x:2", "1:2x", "1:nan", "3:2"}) {
    ::setenv("HETPROBE_HOST_SLOW", bad, 1);
    try {
      open_device("host", 0);
      ADD_FAILURE() << "HETPROBE_HOST_SLOW=" << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage);
      EXPECT_NE(std::string(e.what()).find(std::string("HETPROBE_HOST_SLOW=") + bad), std::string::npos) << e.what();
    }
  }
  ::unsetenv("HETPROBE_HOST_SLOW");
  ::unsetenv("HETPROBE_HOST_DEVICES");
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
