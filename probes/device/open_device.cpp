#include <string>

#include "bench/core/errors.hpp"
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
}  // namespace

int device_count(const std::string& backend) {
  const BackendEntry* b = find_backend(backend);
  std::string why;
  return b ? b->count(why) : 0;
}

std::unique_ptr<Device> open_device(const std::string& backend, int ordinal, std::string* chosen_because) {
  if (backend == "auto") {
    std::string reasons;
    for (const auto& b : compiled_backends()) {
      if (b.name == "host") continue;
      std::string why;
      const int n = b.count(why);
      if (n > ordinal) {
        if (chosen_because) *chosen_because = "auto: " + b.name + " has " + std::to_string(n) + " device(s)";
        return b.open(ordinal);
      }
      reasons += (reasons.empty() ? "" : "; ") + b.name + ": " +
                 (why.empty() ? "no device " + std::to_string(ordinal) : why);
    }
    std::string host_why;
    const int hosts = find_backend("host")->count(host_why);
    if (hosts == 0 && !host_why.empty()) throw usage_error(host_why);  // HETPROBE_HOST_DEVICES's text
    if (ordinal >= hosts)  // never silently another device than the one asked for
      throw usage_error("--gpu " + std::to_string(ordinal) + ": no backend has a device " + std::to_string(ordinal) +
                        " (" + (reasons.empty() ? std::string("no GPU backend compiled in") : reasons) +
                        "; host: " + std::to_string(hosts) + " device(s))");
    if (chosen_because)
      *chosen_because = "auto: no GPU backend usable (" +
                        (reasons.empty() ? std::string("none compiled in") : reasons) + "), using host threads";
    return find_backend("host")->open(ordinal);
  }
  const BackendEntry* b = find_backend(backend);
  if (b == nullptr) {
    if (backend == "cuda" || backend == "hip")
      throw usage_error("--device " + backend + ": this hetprobe was built without the " + backend +
                        " backend (built with: " + backend_names() + ")");
    throw usage_error("--device " + backend + ": unknown backend (expected " + backend_names() + ")");
  }
  std::string why;
  const int n = b->count(why);
  if (backend == "host" && n == 0 && !why.empty()) throw usage_error(why);
  if (ordinal < 0 || n <= ordinal)
    throw usage_error("--gpu " + std::to_string(ordinal) + " --device " + backend + ": " +
                      (n > 0 ? "the " + backend + " backend has devices 0 to " + std::to_string(n - 1)
                             : "no device (" + (why.empty() ? std::string("none found") : why) + ")"));
  if (chosen_because) *chosen_because = "requested";
  return b->open(ordinal);
}

}  // namespace hetprobe
