// A device's copy engine: asynchronous copies from device memory to pinned
// host memory on independent lanes (GPU streams; the host backend copies at
// once). The halo probe stages messages with it and the interference probe
// moves its copy payload with it.
#pragma once

#include <cstddef>

namespace hetprobe {

class CopyEngine {
 public:
  virtual ~CopyEngine() = default;
  // Copies `bytes` of device memory to host memory (a PinnedBuffer's host
  // side) on lane `lane` and returns at once; lanes are made as needed.
  virtual void start_to_host(int lane, std::byte* host_dst, const std::byte* device_src, std::size_t bytes) = 0;
  // Whether the lane's copies have ended, without waiting.
  virtual bool done(int lane) = 0;
};

}  // namespace hetprobe
