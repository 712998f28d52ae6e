// spin_host(): the host side of every flag wait. It returns when the
// condition holds, gives up after its timeout naming the wait, and ends at a
// stop request however long its timeout (Ctrl-C during a wait of --timeout inf).
#include "probes/device/host_spin.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <limits>
#include <string>
#include <thread>

#include "base/stop_request.hpp"

namespace hetprobe {
namespace {

constexpr double kForever = std::numeric_limits<double>::infinity();

ErrorKind kind_thrown_by(double timeout_s) {
  try {
    spin_host([] { return false; }, timeout_s, "the flag");
  } catch (const Error& e) {
    return e.kind();
  }
  ADD_FAILURE() << "spin_host returned on a condition that never holds";
  return ErrorKind::check;
}

TEST(SpinHost, ReturnsOnceTheConditionHolds) {
  std::atomic<bool> flag{false};
  std::thread setter([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // past the spinning part of the wait
    flag = true;
  });
  spin_host([&] { return flag.load(); }, kForever, "the flag");
  setter.join();
  EXPECT_TRUE(flag);
}

TEST(SpinHost, GivesUpAfterItsTimeoutNamingTheWait) {
  try {
    spin_host([] { return false; }, 0.01, "the device's echo");
    ADD_FAILURE() << "no timeout";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::timeout);
    EXPECT_EQ(std::string(e.what()), "the device's echo did not happen within 0.01 s (--timeout)");
  }
}

TEST(SpinHost, AStopRequestEndsAnEndlessWait) {
  std::thread stopper([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    request_stop();
  });
  const ErrorKind kind = kind_thrown_by(kForever);
  stopper.join();
  clear_stop_request();
  EXPECT_EQ(kind, ErrorKind::interrupted);
}

TEST(SpinHost, AStopRequestedBeforeTheWaitEndsItToo) {
  request_stop();
  const ErrorKind kind = kind_thrown_by(1e300);
  clear_stop_request();
  EXPECT_EQ(kind, ErrorKind::interrupted);
  EXPECT_FALSE(stop_requested());
}

}  // namespace
}  // namespace hetprobe
