// Opens device 0 of a backend for a parameterised suite, or says why it
// cannot (not built, no device) so the test can skip.
#pragma once

#include <memory>
#include <string>

#include "probes/device/device.hpp"

namespace hetprobe {

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

}  // namespace hetprobe
