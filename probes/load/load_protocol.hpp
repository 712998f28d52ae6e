// The GPU load's protocol, written once for every backend: the traffic a
// device makes in pinned host memory while the CPU sends (write, read, poll,
// and copy on the host backend), how fast, and how its progress is stamped.
// GPU kernels and host threads run the same run_load_worker() and
// run_load_reporter().
//
// Roles, for one task (one epoch):
//   workers  each moves its chunks of the region, pass after pass, adds what
//            it moved to shared.bytes after every chunk, paces itself to its
//            share of the target rate, and stops when shared.abort is set;
//   reporter one thread that never moves data: it sets control.ready once
//            every worker runs, stamps (device timer, shared.bytes) into a
//            ring in pinned memory about every stamp_every_ticks, watches
//            control.stop and control.alive (the host's heartbeat: the load
//            gives up timeout_ticks after it last changed), sets shared.abort,
//            waits for the workers to leave, publishes the result, done = epoch.
// The host puts the timed send on the device timer by a clock sync and reads
// the bytes moved inside it from the stamps (interpolated), so the traffic of
// a send is measured even when a pass takes far longer than the send.
// Workers meet at no barrier: nothing needs a cooperative launch, and a
// worker that never got scheduled delays nothing but the ready flag, which
// gives up waiting after ready_grace_ticks.
#pragma once

#include <cstddef>
#include <cstdint>

#include "probes/device/portability.hpp"
#include "probes/writer/writer_protocol.hpp"

namespace hetprobe {

// What a load does. copy_d2h and copy_h2d are the copy engine's on a GPU
// (not this protocol) and worker copies (LoadOp::copy) on the host backend.
enum class LoadKind : std::uint32_t { none, write, read, poll, copy_d2h, copy_h2d };

// The operation a worker runs on each 16-byte unit of its chunks.
enum class LoadOp : std::uint32_t { write, read, poll, copy };

struct alignas(16) LoadStamp {
  unsigned long long ticks;  // device timer
  unsigned long long bytes;  // moved so far in this epoch
};

// In pinned host memory, one per engine. Epochs only grow (compared with >=).
struct LoadControl {
  FlagLine ready;  // device -> host: every worker of this epoch runs (or the grace ran out)
  FlagLine stop;   // host -> device: stop the load of every epoch <= this
  FlagLine alive;  // host -> device: changes while the host is there; the load gives up timeout_ticks after it last did
  FlagLine stamps;  // device -> host: stamps written in the running epoch
  FlagLine done;    // device -> host: the result below belongs to this epoch
  struct alignas(128) Result {
    unsigned long long status;                   // writer_status_ok or writer_status_timeout
    unsigned long long bytes;                    // moved in all
    unsigned long long t_start, t_ready, t_end;  // device timer
    unsigned long long workers_started;
    unsigned long long control_reads;  // the reporter's reads of the host's flags (8 B each over the link)
  } result;
};

// Team-visible counters (device memory on a GPU), zeroed before each task.
struct LoadShared {
  unsigned long long bytes;     // workers add what they moved
  unsigned long long started;   // workers running
  unsigned long long finished;  // workers that have left
  unsigned long long go;        // reporter -> workers: the device tick of the ready flag; move data from then on
  unsigned long long abort;     // reporter -> workers: stop now
  unsigned long long sink;      // read and poll fold what they loaded in here (kept from the optimiser)
};

struct LoadArgs {
  LoadOp op;
  unsigned char* target;  // the region in pinned host memory (poll: its first 8-aligned word)
  std::uint64_t target_bytes;
  unsigned char* source;  // copy: the other end (device memory); the op copies source -> target
  bool copy_to_source;    // copy: target -> source instead
  LoadControl* control;   // device address
  LoadStamp* ring;        // device address; ring_mask + 1 entries
  std::uint64_t ring_mask;
  LoadShared* shared;
  std::uint64_t epoch;
  std::uint64_t workers;      // how many run_load_worker() calls this task has
  std::uint64_t chunk_bytes;  // per worker between progress updates (multiple of 16)
  double bytes_per_tick;      // the whole load's target rate; 0: as fast as it can
  std::uint64_t stamp_every_ticks;
  std::uint64_t ready_grace_ticks;
  std::uint64_t timeout_ticks;  // from the last change of control->alive (or the start) to giving up
};

// A load's region split into an unaligned head, 16-byte units and a tail.
struct LoadRegion {
  std::uint64_t head, units, tail;
};
HETPROBE_HD inline LoadRegion split_region(const unsigned char* p, std::uint64_t bytes) {
  const std::uint64_t misalign = reinterpret_cast<std::uintptr_t>(p) % 16;
  std::uint64_t head = misalign ? 16 - misalign : 0;
  if (head > bytes) head = bytes;
  return {head, (bytes - head) / 16, (bytes - head) % 16};
}

// The word a write load stores in pass `pass`: every byte has bit 7 set, so it
// differs from every payload byte and a torn send buffer is counted exactly.
HETPROBE_HD inline std::uint64_t load_word(std::uint64_t pass) { return post_word(pass, 0); }

// The word a poll load reads: the region's first 8-aligned one.
HETPROBE_HD inline const unsigned long long* poll_flag(const LoadArgs& a) {
  return reinterpret_cast<const unsigned long long*>((reinterpret_cast<std::uintptr_t>(a.target) + 7) / 8 * 8);
}

// One byte of a region's unaligned head or tail.
template <class W>
HETPROBE_HD inline void load_edge_byte(W& w, const LoadArgs& a, unsigned char* p, std::uint64_t word,
                                       std::uint64_t& acc) {
  unsigned char* far = a.source + (p - a.target);
  if (a.op == LoadOp::write) w.store_byte(p, static_cast<unsigned char>(word));
  else if (a.op == LoadOp::read) acc ^= w.load_byte(p);
  else if (a.copy_to_source) w.store_byte(far, static_cast<unsigned char>(w.load_byte(p)));
  else w.store_byte(p, static_cast<unsigned char>(w.load_byte(far)));
}

// Worker: worker(), workers(), lane(), lanes() (lanes move a chunk together and
// agree through broadcast()), sync_lanes(), timer(), pause(ticks), relax(),
// add(p, x) (team-visible atomic add), load_shared(p), store16/load16 on a
// unit, load_flag(p) (a system-scope poll), store_byte/load_byte.
template <class W>
HETPROBE_HD inline void run_load_worker(W& w, const LoadArgs& a) {
  const bool lead = w.lane() == 0;
  if (lead) w.add(&a.shared->started, 1);
  const LoadRegion r = split_region(a.target, a.target_bytes);
  const std::uint64_t units_per_chunk = a.chunk_bytes / 16 ? a.chunk_bytes / 16 : 1;
  // A region of under 16 bytes is one chunk of edge bytes alone.
  const std::uint64_t body_chunks = (r.units + units_per_chunk - 1) / units_per_chunk;
  const std::uint64_t chunks = a.op == LoadOp::poll || body_chunks == 0 ? 1 : body_chunks;
  const double worker_rate = a.bytes_per_tick / static_cast<double>(a.workers);
  // Every worker starts at the reporter's word, so the schedule of a paced
  // load starts with the ready flag, not with whichever worker ran first.
  unsigned long long go = 0;
  while (go == 0 && w.load_shared(&a.shared->abort) == 0) {
    go = w.load_shared(&a.shared->go);
    if (go == 0) w.relax();
  }
  const std::uint64_t t0 = go ? go : w.timer();
  std::uint64_t chunk = w.worker() % chunks, pass = w.worker() / chunks;
  std::uint64_t moved = 0, acc = 0;
  const unsigned long long* flag = poll_flag(a);
  // A poll chunk is chunk_bytes of 8-byte polls over the lanes (a GPU engine
  // makes it one poll: under a whole grid's polling one read can take milliseconds).
  const std::uint64_t polls = a.chunk_bytes / 8 / w.lanes() ? a.chunk_bytes / 8 / w.lanes() : 1;
  const std::uint64_t chunk_estimate = a.op == LoadOp::poll ? 8 * polls * w.lanes() : a.chunk_bytes;
  // Paced, worker k's chunks are due a fraction (k + 1/2) / workers of a
  // chunk's time later than worker 0's: the workers' chunks interleave evenly,
  // and the load's traffic is smooth, not bursts of every worker at once.
  const double phase = (static_cast<double>(w.worker()) + 0.5) / static_cast<double>(a.workers);
  for (;;) {
    if (lead && worker_rate > 0) {
      const double due = (static_cast<double>(moved) + phase * static_cast<double>(chunk_estimate)) / worker_rate;
      const std::uint64_t elapsed = w.timer() - t0;
      if (due > static_cast<double>(elapsed)) w.pause(static_cast<std::uint64_t>(due) - elapsed);
    }
    w.sync_lanes();
    // Asked before the chunk, looked at after it: the load's latency hides behind the work.
    const unsigned long long abort = lead ? w.load_shared(&a.shared->abort) : 0;
    std::uint64_t bytes = 0;
    if (a.op == LoadOp::poll) {
      // Every lane reads the flag and waits for the value before it reads
      // again, as a kernel waiting on the host does.
      std::uint64_t v = 0, i = 0;
      for (; i < polls && v != 0x5EED5EED5EED5EEDull; ++i) v = w.load_flag(flag);
      acc ^= v;
      bytes = 8 * i * w.lanes();  // 8 B a thread-poll; a warp's polls of one word are one request
    } else {
      const std::uint64_t first = chunk * units_per_chunk;
      const std::uint64_t last = first + units_per_chunk < r.units ? first + units_per_chunk : r.units;
      unsigned char* body = a.target + r.head;
      const std::uint64_t word = load_word(pass);
      const std::uint64_t L = w.lanes();
      std::uint64_t u = first + w.lane();
      if (a.op == LoadOp::read) {
        // Four loads issued before any result is used: four reads in flight per lane.
        for (; u + 3 * L < last; u += 4 * L) {
          const std::uint64_t x0 = w.load16(body + 16 * u), x1 = w.load16(body + 16 * (u + L));
          const std::uint64_t x2 = w.load16(body + 16 * (u + 2 * L)), x3 = w.load16(body + 16 * (u + 3 * L));
          acc ^= x0 ^ x1 ^ x2 ^ x3;
        }
        for (; u < last; u += L) acc ^= w.load16(body + 16 * u);
      } else if (a.op == LoadOp::write) {
        for (; u < last; u += L) w.store16(body + 16 * u, word, word);
      } else {
        for (; u < last; u += L) {
          unsigned char* far = a.source + r.head + 16 * u;  // the same offset in the far region
          if (a.copy_to_source) w.copy16(far, body + 16 * u);
          else w.copy16(body + 16 * u, far);
        }
      }
      bytes = 16 * (last - first);
      // The unaligned ends, once a pass, by one lane of the worker that takes chunk 0.
      if (chunk == 0 && lead) {
        for (std::uint64_t j = 0; j < r.head; ++j) load_edge_byte(w, a, a.target + j, word, acc);
        for (std::uint64_t j = 0; j < r.tail; ++j) load_edge_byte(w, a, body + 16 * r.units + j, word, acc);
        bytes += r.head + r.tail;
      }
    }
    w.sync_lanes();
    if (lead) {
      w.add(&a.shared->bytes, bytes);
      moved += bytes;
    }
    if (w.broadcast(abort) != 0) break;
    chunk += w.workers();
    pass += chunk / chunks;
    chunk %= chunks;
  }
  if (acc == 0x5EED5EED5EED5EEDull) w.add(&a.shared->sink, acc);  // never true in practice; the loads must stay
  w.sync_lanes();
  if (lead) w.add(&a.shared->finished, 1);
}

// Ops: timer(), relax() (between iterations: nothing on a GPU, a yield on the
// host), load_shared(p), store_shared(p, v), store_release/store_relaxed/
// load_acquire (system scope), fence_system().
template <class Ops>
HETPROBE_HD inline void run_load_reporter(Ops& ops, const LoadArgs& a) {
  LoadControl* c = a.control;
  const std::uint64_t t_start = ops.timer();
  std::uint64_t t_ready = 0, last_stamp = 0, stamps = 0;
  unsigned long long alive = ops.load_acquire(&c->alive.value);
  std::uint64_t t_alive = t_start;  // when the host last showed it is there
  unsigned long long status = writer_status_ok;
  unsigned long long control_reads = 0;  // the host's flags read over the link: its own traffic, recorded
  bool ready = false;
  for (std::uint64_t iter = 0;; ++iter) {
    const std::uint64_t now = ops.timer();
    const unsigned long long bytes = ops.load_shared(&a.shared->bytes);
    if (!ready && (ops.load_shared(&a.shared->started) >= a.workers || now - t_start > a.ready_grace_ticks)) {
      ready = true;
      t_ready = now;
      ops.store_shared(&a.shared->go, now ? now : 1);
      ops.store_release(&c->ready.value, a.epoch);
    }
    if (ready && (stamps == 0 || now - last_stamp >= a.stamp_every_ticks)) {
      a.ring[stamps & a.ring_mask] = LoadStamp{now, bytes};
      ops.store_release(&c->stamps.value, ++stamps);
      last_stamp = now;
    }
    // The host's flags are reads over the link: asked one iteration in four,
    // so stamps stay close together.
    if ((iter & 3) == 0) {
      control_reads += 2;
      if (ops.load_acquire(&c->stop.value) >= a.epoch) break;
      const unsigned long long seen = ops.load_acquire(&c->alive.value);
      if (seen != alive) alive = seen, t_alive = now;
    }
    if (now - t_alive > a.timeout_ticks) {
      status = writer_status_timeout;
      break;
    }
    ops.relax();
  }
  ops.store_shared(&a.shared->abort, 1);
  // Workers leave within a chunk; one that never started is not waited for.
  const std::uint64_t t_abort = ops.timer();
  while (ops.load_shared(&a.shared->finished) < ops.load_shared(&a.shared->started) &&
         ops.timer() - t_abort < a.ready_grace_ticks)
    ops.relax();
  const std::uint64_t t_end = ops.timer();
  const unsigned long long bytes = ops.load_shared(&a.shared->bytes);
  if (!ready) t_ready = t_end;
  a.ring[stamps & a.ring_mask] = LoadStamp{t_end, bytes};
  ops.store_release(&c->stamps.value, ++stamps);
  c->result.status = status;
  c->result.bytes = bytes;
  c->result.t_start = t_start;
  c->result.t_ready = t_ready;
  c->result.t_end = t_end;
  c->result.workers_started = ops.load_shared(&a.shared->started);
  c->result.control_reads = control_reads;
  ops.fence_system();
  ops.store_release(&c->done.value, a.epoch);
}

}  // namespace hetprobe
