// The per-sample protocol of the interference probe (DIGEST 4.5), on both ranks:
//
//   both:     start the writer if it runs on this rank and wait for its ready
//             flag (SSB: wait for the kernel to end); the receiver then posts
//             its MPI_Irecv; MPI_Barrier
//   sender:   read the writer's pass counter; t0; MPI_Send (or Isend + Wait); t1;
//             read the pass counter again
//   receiver: MPI_Wait on the receive
//   both:     stop the writer and join it; the receiver checks the payload
//
// The writer starts before the barrier so it is at full speed when the send
// starts; only the send is inside the timed interval.
#include "hetprobe/interference.hpp"

#include "hetprobe/clock_sync.hpp"

#include <algorithm>

#include "hetprobe/errors.hpp"
#include "hetprobe/interrupt.hpp"
#include "hetprobe/payload.hpp"

namespace hetprobe {

namespace {

constexpr int kTag = 4242;
constexpr int kSyncSamples = 16;  // clock-sync ping-pongs before and after each point
// Receiver-side writers use epochs in their own range, so that a payload its
// own pre-write left behind is never mistaken for the sender's.
constexpr std::uint64_t kReceiverEpochBit = 1ull << 20;  // the payload keeps 21 epoch bits

class PointRunner {
 public:
  PointRunner(const InterferenceConfig& cfg, Device& dev, const MpiContext& mpi,
              const HostClock& clock, PinnedBuffer& mem)
      : cfg_(cfg), dev_(dev), mpi_(mpi), clock_(clock), mem_(mem) {}

  SideSample run(const LayoutPlan& plan, Access access, std::uint64_t sample_epoch) {
    const bool sender = mpi_.rank == 0;
    const bool writer_here = cfg_.writer == WriterSide::both ||
                             (cfg_.writer == WriterSide::sender) == sender;
    const std::uint64_t dev_epoch = sender ? sample_epoch : (sample_epoch | kReceiverEpochBit);
    std::byte* mpi_buf = mem_.host() + plan.mpi_offset;
    SideSample s;
    const bool ssb = plan.layout == Layout::SSB;
    if (writer_here) {
      start_writer(plan, access, dev_epoch);
      if (ssb) record_writer(dev_.join_writer(), s);
      else dev_.wait_ready(dev_epoch, cfg_.timeout_s);
    } else if (sender) {
      fill_payload(mpi_buf, plan.message_bytes, sample_epoch);
    }
    const int bytes = static_cast<int>(plan.message_bytes);
    MPI_Request recv = MPI_REQUEST_NULL;
    if (!sender)
      mpi_check(MPI_Irecv(mpi_buf, bytes, MPI_BYTE, 0, kTag, mpi_.comm, &recv), "MPI_Irecv");
    mpi_check(MPI_Barrier(mpi_.comm), "MPI_Barrier");
    if (sender) {
      // The harness's own cost, measured in the conditions of this very send.
      s.empty_region_ns = clock_.empty_region_sample_ns();
      const bool counting = writer_here && !ssb;
      const std::uint64_t c0 = counting ? dev_.passes_completed() : 0;
      const std::uint64_t t0 = clock_.now();
      int rc;
      if (cfg_.send_mode == SendMode::send) {
        rc = MPI_Send(mpi_buf, bytes, MPI_BYTE, 1, kTag, mpi_.comm);
      } else {
        MPI_Request req;
        rc = MPI_Isend(mpi_buf, bytes, MPI_BYTE, 1, kTag, mpi_.comm, &req);
        if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
      }
      const std::uint64_t t1 = clock_.now();
      s.send_start_host_ns = clock_.to_ns(t0);
      const std::uint64_t c1 = counting ? dev_.passes_completed() : 0;
      mpi_check(rc, cfg_.send_mode == SendMode::send ? "MPI_Send" : "MPI_Isend/MPI_Wait");
      s.send_ns = clock_.to_ns(t1 - t0);
      s.passes_during_send = c1 - c0;
    } else {
      mpi_check(MPI_Wait(&recv, MPI_STATUS_IGNORE), "MPI_Wait");
    }
    if (writer_here && !ssb) {
      dev_.request_stop(dev_epoch);
      record_writer(dev_.join_writer(), s);
    }
    if (!sender && cfg_.check_payload)
      s.mismatched_bytes = count_payload_mismatches(mpi_buf, plan.message_bytes, sample_epoch);
    return s;
  }

 private:
  void start_writer(const LayoutPlan& plan, Access access, std::uint64_t epoch) {
    WriterTask t;
    t.access = access;
    t.pre = mem_.device() + plan.mpi_offset;
    t.pre_bytes = plan.message_bytes;
    if (plan.layout != Layout::SSB) {
      t.post = mem_.device() + plan.post_offset();
      t.post_bytes = plan.post_bytes();
    }
    t.epoch = epoch;
    t.timeout_s = cfg_.timeout_s;
    dev_.start_writer(t);
  }

  void record_writer(const WriterOutcome& o, SideSample& s) {
    const double hz = dev_.info().timer_hz;
    s.writer_passes = o.passes;
    s.writer_pre_s = static_cast<double>(o.t_ready_ticks - o.t_start_ticks) / hz;
    s.writer_ticks[0] = o.t_start_ticks;
    s.writer_ticks[1] = o.t_ready_ticks;
    s.writer_ticks[2] = o.t_end_ticks;
    s.writer_post_s = static_cast<double>(o.t_end_ticks - o.t_ready_ticks) / hz;
    if (o.status == WriterStatus::timeout)
      throw Error(ErrorKind::timeout, "the " + dev_.info().backend + " writer gave up after " +
                                          std::to_string(cfg_.timeout_s) +
                                          " s without a stop from the host (--timeout)");
  }

  const InterferenceConfig& cfg_;
  Device& dev_;
  const MpiContext& mpi_;
  const HostClock& clock_;
  PinnedBuffer& mem_;
};

// Rank 1's samples, moved to rank 0 as raw bytes (both run this binary).
std::vector<SideSample> collect_receiver(const MpiContext& mpi, const std::vector<SideSample>& mine) {
  std::vector<SideSample> out(mine.size());
  const int bytes = static_cast<int>(mine.size() * sizeof(SideSample));
  if (mpi.rank == 1)
    mpi_check(MPI_Send(mine.data(), bytes, MPI_BYTE, 0, kTag + 1, mpi.comm), "MPI_Send");
  else
    mpi_check(MPI_Recv(out.data(), bytes, MPI_BYTE, 1, kTag + 1, mpi.comm, MPI_STATUS_IGNORE),
              "MPI_Recv");
  return out;
}

}  // namespace

const char* to_string(SendMode mode) { return mode == SendMode::send ? "send" : "isend"; }

const char* to_string(WriterSide side) {
  switch (side) {
    case WriterSide::sender: return "sender";
    case WriterSide::receiver: return "receiver";
    case WriterSide::both: return "both";
  }
  return "?";
}

std::vector<PointKey> sweep_points(const InterferenceConfig& config) {
  std::vector<PointKey> points;
  for (std::uint64_t size : config.sizes)
    for (Access a : config.access)
      for (Layout l : config.layouts) points.push_back({size, l, a});
  return points;
}

std::uint64_t interference_allocation_bytes(const InterferenceConfig& cfg) {
  std::uint64_t max_size = 0, max_secondary = 0;
  for (std::uint64_t n : cfg.sizes) {
    max_size = std::max(max_size, n);
    max_secondary = std::max(max_secondary, cfg.secondary_for(n));
  }
  return allocation_bytes(max_size, max_secondary);
}

void run_interference(const InterferenceConfig& cfg, Device& device, PinnedBuffer& mem,
                      const MpiContext& mpi, const HostClock& clock,
                      const std::set<PointKey>& done, const PointSink& sink) {
  if (mpi.size != 2) throw usage_error("the interference probe needs exactly 2 MPI ranks");
  if (mem.size() < interference_allocation_bytes(cfg))
    throw Error(ErrorKind::check, "pinned memory too small for the sweep");
  PointRunner runner(cfg, device, mpi, clock, mem);
  const auto base = reinterpret_cast<std::uintptr_t>(mem.host());
  std::uint64_t epoch = 0;
  for (const PointKey& key : sweep_points(cfg)) {
    if (done.count(key)) continue;
    PointData point{key, plan_layout(key.layout, key.size, cfg.secondary_for(key.size), base), {}, {}, {}};
    // The sender's writer stamps go on the host timeline through a clock fit
    // from syncs on either side of the point (thesis 003 Sec. 4.3.2).
    const bool sender_clock = mpi.rank == 0 && cfg.writer != WriterSide::receiver;
    std::vector<ClockSample> syncs;
    if (sender_clock) syncs = sync_batch(device, clock, kSyncSamples, MemoryOrder::fence, cfg.timeout_s);
    std::vector<SideSample> mine;
    for (int i = 0; i < cfg.warmup + cfg.reps; ++i) {
      if (interrupted()) throw Error(ErrorKind::interrupted, "interrupted by signal " + std::to_string(interrupt_signal()));
      SideSample s = runner.run(point.plan, key.access, ++epoch);
      if (i >= cfg.warmup) mine.push_back(s);
    }
    if (sender_clock) {
      const auto after = sync_batch(device, clock, kSyncSamples, MemoryOrder::fence, cfg.timeout_s);
      syncs.insert(syncs.end(), after.begin(), after.end());
      point.sender_clock = fit_clock(syncs, 0.5);
    }
    std::vector<SideSample> theirs = collect_receiver(mpi, mine);
    if (mpi.rank == 0) {
      point.sender = std::move(mine);
      point.receiver = std::move(theirs);
      sink(point);
    }
  }
}

}  // namespace hetprobe
