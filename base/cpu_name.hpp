// The host CPU's model name, as the results header's node and the host
// backend's simulated device both show it.
#pragma once

#include <string>

namespace hetprobe {

// /proc/cpuinfo's first "model name", trimmed ("unknown CPU" where there is
// none, as on some ARM kernels). HETPROBE_HOST_CPU_NAME=TEXT (a test option)
// replaces it, so the suite can be run as on a machine of another CPU.
std::string host_cpu_name();

}  // namespace hetprobe
