// The host backend's engines, made by HostDevice (host_device.cpp): CPU
// threads run the same protocol code as the GPU kernels.
#pragma once

#include <memory>

#include "probes/copy/copy_engine.hpp"
#include "probes/halo/halo_engine.hpp"
#include "probes/load/load_engine.hpp"
#include "probes/signal/signal_engine.hpp"
#include "probes/writer/writer_engine.hpp"

namespace hetprobe::host_backend {

std::unique_ptr<WriterEngine> make_writer_engine(Device& device);    // host_writer_engine.cpp
std::unique_ptr<SignalEngine> make_signal_engine(Device& device);    // host_signal_engine.cpp
std::unique_ptr<HaloEngine> make_halo_engine(const Device& device);  // host_halo_engine.cpp
std::unique_ptr<LoadEngine> make_load_engine(Device& device);        // host_load_engine.cpp

// Threads of a "stacked" launch: every hardware thread but the caller's.
inline int stacked_threads(const DeviceInfo& info) { return info.multiprocessors > 1 ? info.multiprocessors - 1 : 1; }

}  // namespace hetprobe::host_backend
