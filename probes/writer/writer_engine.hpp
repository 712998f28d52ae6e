// A device's writer engine: the interference probe's writer (writer_protocol.hpp)
// on the device's threads, started and stopped by the host through a flag
// block in pinned memory. Each backend implements launch and exit; the
// handshake (epochs, ready, stop, result) is here, once. The probe that makes
// an engine owns it and destroys it before the device.
#pragma once

#include <cstddef>
#include <cstdint>

#include "probes/device/device.hpp"
#include "probes/writer/writer_protocol.hpp"

namespace hetprobe {

// One writer run. Addresses are device addresses inside a PinnedBuffer.
struct WriterTask {
  Access access = Access::stream;
  std::byte* pre = nullptr;  // written once with the payload, then the ready flag
  std::uint64_t pre_bytes = 0;
  std::byte* post = nullptr;  // written pass after pass until stopped; null: end after ready
  std::uint64_t post_bytes = 0;
  std::uint64_t epoch = 0;  // > 0 and increasing over an engine's life
  double timeout_s = 30;    // the writer gives up waiting for the stop flag after this
};

enum class WriterStatus { ok, timeout };

struct WriterOutcome {
  WriterStatus status = WriterStatus::ok;
  std::uint64_t passes = 0;                                             // completed post-ready passes
  std::uint64_t t_start_ticks = 0, t_ready_ticks = 0, t_end_ticks = 0;  // device timer
};

class WriterEngine {
 public:
  virtual ~WriterEngine();
  WriterEngine(const WriterEngine&) = delete;
  WriterEngine& operator=(const WriterEngine&) = delete;

  // Launch shape of the writer for one access mode.
  virtual WriterShape shape(Access access) const = 0;
  // Starts a writer and returns once it is launched. One writer at a time.
  void start(const WriterTask& task);
  // Blocks until the writer has set the ready flag for `epoch`; throws a
  // timeout Error after `timeout_s` or a device Error if the writer failed.
  void wait_ready(std::uint64_t epoch, double timeout_s);
  // Post-ready passes the running writer has completed (a cheap host load).
  std::uint64_t passes_completed() const;
  // Asks the writer of `epoch` to stop after its current pass.
  void request_stop(std::uint64_t epoch);
  // Waits (bounded by the task's timeout) for the writer to end and returns
  // what it did. A writer with a post phase ends only after request_stop().
  WriterOutcome join();

 protected:
  // `control` is the flag block in pinned memory, as the host sees it.
  WriterEngine(const Device& device, WriterControl* control);
  // Backend part of start(): launch the writer's threads or kernel.
  virtual void launch(const WriterTask& task) = 0;
  // Backend part of join(): wait for the writer's threads or kernel.
  virtual void wait_exit() = 0;
  // Polled while waiting for ready: throws if the writer failed to run.
  virtual void check_alive() {}
  bool running() const { return running_; }
  WriterControl* control_block() const { return control_; }
  const Device& device_;

 private:
  WriterControl* control_;
  std::uint64_t epoch_ = 0;
  bool running_ = false;
};

}  // namespace hetprobe
