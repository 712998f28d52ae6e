// What the Device suites share: opening device 0 of the backend under test
// (or saying why it cannot: not built, no device, so the test can skip), the
// fixture built on that, and the numbering of engine tasks.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <tuple>

#include "probes/device/device.hpp"

namespace hetprobe {

// Device 0 of `backend`, or null with `why_not` said.
inline std::unique_ptr<Device> open_backend_under_test(const std::string& backend, std::string& why_not) {
  for (const auto& b : compiled_backends()) {
    if (b.name != backend) continue;
    if (const DeviceCount c = b.count(); c.devices == 0) {
      why_not = backend + ": no device (" + c.why_none + ")";
      return nullptr;
    }
    return open_device(backend, 0);
  }
  why_not = backend + " backend not built";
  return nullptr;
}

// A suite's parameter names the backend alone, or first in a tuple.
inline const std::string& backend_of(const std::string& param) { return param; }
template <class... Rest>
const std::string& backend_of(const std::tuple<std::string, Rest...>& param) {
  return std::get<0>(param);
}

// The fixture of a suite run on every backend: opens the device its parameter
// names (skipping where it cannot), then lets the suite set up what it needs
// on it. Members of the suite are destroyed before device_.
template <class Param>
class BackendTest : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() final {
    std::string why_not;
    device_ = open_backend_under_test(backend_of(this->GetParam()), why_not);
    if (!device_) GTEST_SKIP() << why_not;
    set_up_on_device();
  }
  virtual void set_up_on_device() = 0;

  std::unique_ptr<Device> device_;
};

// Numbers the tasks an engine is given: their epochs must grow over its life.
class TaskEpochs {
 public:
  std::uint64_t next() { return ++last_; }
  // `t` with the next epoch and 20 s before the device gives up waiting.
  template <class Task>
  Task stamped(Task t) {
    t.epoch = next();
    t.timeout_s = 20;
    return t;
  }

 private:
  std::uint64_t last_ = 0;
};

}  // namespace hetprobe
