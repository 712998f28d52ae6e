// The process-wide stop and its registry of device stop flags (base/stop_request.hpp).
#include "base/stop_request.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace hetprobe {
namespace {

struct StopRequest : ::testing::Test {
  void TearDown() override { clear_stop_request(); }
};

TEST_F(StopRequest, SetsEveryRegisteredFlagAndNoOther) {
  unsigned long long running = 5, ended = 5;
  ASSERT_TRUE(register_stop_flag(&running));
  ASSERT_TRUE(register_stop_flag(&ended));
  unregister_stop_flag(&ended);
  EXPECT_FALSE(stop_requested());
  request_stop();
  EXPECT_TRUE(stop_requested());
  EXPECT_EQ(running, ~0ull) << "a registered flag is told to stop";
  EXPECT_EQ(ended, 5u) << "an unregistered flag is left alone";
  unregister_stop_flag(&running);
}

TEST_F(StopRequest, AFlagRegisteredTwiceTakesOneSlot) {
  std::vector<unsigned long long> flags(kMaxStopFlags);
  unsigned long long twice = 0;
  ASSERT_TRUE(register_stop_flag(&twice));
  ASSERT_TRUE(register_stop_flag(&twice));
  int taken = 0;
  for (auto& f : flags) taken += register_stop_flag(&f);
  EXPECT_EQ(taken, kMaxStopFlags - 1) << "the second registration of one flag took a slot of its own";
  for (auto& f : flags) unregister_stop_flag(&f);
  unregister_stop_flag(&twice);
  // Every slot is free again.
  taken = 0;
  for (auto& f : flags) taken += register_stop_flag(&f);
  EXPECT_EQ(taken, kMaxStopFlags);
  for (auto& f : flags) unregister_stop_flag(&f);
}

}  // namespace
}  // namespace hetprobe
