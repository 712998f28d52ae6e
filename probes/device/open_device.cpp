#include <algorithm>
#include <iterator>
#include <string>

#include "base/errors.hpp"
#include "probes/device/device.hpp"

namespace hetprobe {

namespace {
const BackendEntry* find_backend(const std::string& name) {
  for (const auto& b : compiled_backends())
    if (b.name == name) return &b;
  return nullptr;
}

std::string backend_names() {
  std::string names = "auto";
  for (const auto& b : compiled_backends()) names += "|" + b.name;
  return names;
}

std::string joined(const std::string& a, const std::string& b) { return a.empty() ? b : a + "; " + b; }

// "no GPU found (no CUDA driver)" where the backend simply has no GPU here;
// "no usable GPU (cudaErrorX: ...)" where something is wrong.
std::string none_found(const DeviceCount& c) {
  return (c.absent ? "no GPU found (" : "no usable GPU (") + c.why_none + ")";
}
}  // namespace

int device_count(const std::string& backend) {
  const BackendEntry* b = find_backend(backend);
  return b ? b->count().devices : 0;
}

std::unique_ptr<Device> open_device(const std::string& backend, int ordinal, std::string* chosen_because) {
  if (backend == "auto") {
    // Why each GPU backend was passed over: plain absences apart from faults,
    // so a machine without a GPU reads as that, not as a broken driver.
    std::string absent, faults;
    for (const auto& b : compiled_backends()) {
      if (b.name == "host") continue;
      const DeviceCount c = b.count();
      if (c.devices > ordinal) {
        if (chosen_because) *chosen_because = "auto: " + b.name + " has " + std::to_string(c.devices) + " device(s)";
        return b.open(ordinal);
      }
      if (c.devices > 0) absent = joined(absent, b.name + " has devices 0 to " + std::to_string(c.devices - 1));
      else if (c.absent) absent = joined(absent, c.why_none);
      else faults = joined(faults, b.name + ": " + c.why_none);
    }
    const std::string reasons = joined(faults, absent);
    const DeviceCount host = find_backend("host")->count();
    if (host.devices == 0) throw usage_error(host.why_none);  // HETPROBE_HOST_DEVICES's text
    const int hosts = host.devices;
    if (ordinal >= hosts)  // never silently another device than the one asked for
      throw usage_error("--gpu " + std::to_string(ordinal) + ": no backend has a device " + std::to_string(ordinal) +
                        " (" + (reasons.empty() ? std::string("no GPU backend built in") : reasons) +
                        "; host: " + std::to_string(hosts) + " device(s))");
    if (chosen_because)
      *chosen_because = (!faults.empty()  ? "no usable GPU (" + reasons + ")"
                         : absent.empty() ? std::string("no GPU backend built in")
                                          : "no GPU found (" + absent + ")") +
                        "; using the host backend";
    return find_backend("host")->open(ordinal);
  }
  const BackendEntry* b = find_backend(backend);
  if (b == nullptr) {
    if (std::find(std::begin(kBackendNames), std::end(kBackendNames), backend) != std::end(kBackendNames))
      throw usage_error("--device " + backend + ": this hetprobe was built without the " + backend +
                        " backend (built with: " + backend_names() + ")");
    throw usage_error("--device " + backend + ": unknown backend (expected " + backend_names() + ")");
  }
  const DeviceCount c = b->count();
  if (c.devices == 0)
    throw usage_error("--device " + backend + ": " +
                      (backend == "host" ? c.why_none : none_found(c) + "; --device host runs on the CPU instead"));
  if (ordinal < 0 || c.devices <= ordinal)
    throw usage_error("--gpu " + std::to_string(ordinal) + " --device " + backend + ": the " + backend +
                      " backend has devices 0 to " + std::to_string(c.devices - 1));
  if (chosen_because) *chosen_because = "requested";
  return b->open(ordinal);
}

}  // namespace hetprobe
