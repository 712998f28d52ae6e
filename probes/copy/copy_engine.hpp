// A device's copy engine: asynchronous copies between device memory and
// pinned host memory, or within device memory, on lanes (GPU: a few streams
// the lanes share, an event per lane saying when its own copy ended; the host
// backend copies at once). A lane's copies run in order. The halo probe stages
// messages with it (sends to the host, receives to the device) and measures
// its references with it; the interference probe moves its copy payload with
// it.
#pragma once

#include <cstddef>

namespace hetprobe {

class CopyEngine {
 public:
  virtual ~CopyEngine() = default;
  // Copies `bytes` of device memory to host memory (a PinnedBuffer's host
  // side) on lane `lane` and returns at once; lanes are made as needed.
  virtual void start_to_host(int lane, std::byte* host_dst, const std::byte* device_src, std::size_t bytes) = 0;
  // Copies `bytes` of host memory (a PinnedBuffer's host side) to device
  // memory on lane `lane` and returns at once.
  virtual void start_to_device(int lane, std::byte* device_dst, const std::byte* host_src, std::size_t bytes) = 0;
  // Copies `bytes` of device memory to device memory on lane `lane` and
  // returns at once: what the device's own memory moves, beside the link.
  virtual void start_within_device(int lane, std::byte* device_dst, const std::byte* device_src, std::size_t bytes) = 0;
  // Whether the lane's copies have ended, without waiting.
  virtual bool done(int lane) = 0;
};

}  // namespace hetprobe
