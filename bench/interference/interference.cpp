// The protocol of the interference probe (DIGEST 4.5), on both ranks. A point:
//
//   side with the GPU (--writer): two payloads (of the point's two sample
//             epochs, alternating) are written by the GPU into device memory;
//             each GPU to load is synced with the host clock; the loads start,
//             and run for kLoadSettleSeconds before the first sample.
//   samples:  the sender's GPU copies the sample's payload into the send
//             buffer (the copy engine: the loads hold every SM; where the load
//             is the copy engine's, a kernel writes it instead); the receiver
//             posts its MPI_Irecv; MPI_Barrier; the sender times MPI_Send (or
//             Isend + Wait), the receiver its MPI_Wait; the receiver checks the payload.
//   end:      the loads stop; the clocks are synced again; each timed call is
//             put on each GPU's timer by the fit, and the bytes inside it read
//             off the load's stamps.
//
// --paper keeps the paper's own sample: one kernel writes the payload, sets
// its ready flag and goes on writing during the send, stopped and joined after it.
#include "bench/interference/interference.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <memory>
#include <thread>

#include "bench/clock/clock_sync.hpp"
#include "bench/core/errors.hpp"
#include "bench/core/interrupt.hpp"
#include "bench/core/sizes.hpp"
#include "bench/interference/payload.hpp"
#include "probes/copy/copy_engine.hpp"
#include "probes/writer/writer_engine.hpp"

namespace hetprobe {

namespace {

constexpr int kTag = 4242;
constexpr int kSyncSamples = 16;  // clock-sync ping-pongs before and after each point
// Rank 1's samples of a point travel to rank 0 as one MPI message of int bytes.
constexpr long long kMaxSamplesPerPoint = 0x7FFFFFFF / static_cast<long long>(sizeof(SideSample));
// Receiver-side writers use epochs in their own range, so that a payload its
// own pre-write left behind is never mistaken for the sender's.
constexpr std::uint64_t kReceiverEpochBit = 1ull << 20;  // the payload keeps 21 epoch bits

// A point's loads on this rank: one task per GPU, rates resolved.
struct PointLoads {
  std::vector<LoadTask> tasks;
  Json info = nullptr;  // per GPU: placement, shape, full and target rates; then what it did
};

// Waits (bounded, and ended by Ctrl-C) until a copy lane has finished.
void wait_copy(CopyEngine& copies, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (unsigned spins = 0; !copies.done(0); ++spins)
    if ((spins & 0xFF) == 0) {
      throw_if_interrupted();
      if (std::chrono::steady_clock::now() > deadline)
        throw Error(ErrorKind::timeout, "the payload copy did not end within " + std::to_string(timeout_s) + " s");
    }
}

class PointRunner {
 public:
  PointRunner(const InterferenceConfig& cfg, Device& dev, LoadSet* loads, const MpiContext& mpi, const HostClock& clock,
              PinnedBuffer& mem)
      : cfg_(cfg),
        dev_(dev),
        writer_(dev.make_writer_engine()),
        copies_(dev.make_copy_engine()),
        loads_(loads),
        mpi_(mpi),
        clock_(clock),
        mem_(mem) {}

  bool writer_here() const { return gpu_on_rank(cfg_.writer, mpi_.rank); }
  WriterShape writer_shape(Access access) const { return writer_->shape(access); }

  // Every sample of one point; `epoch` counts on, the same on both ranks.
  std::vector<SideSample> run_point(const PointKey& key, const LayoutPlan& plan, PointLoads& loads,
                                    std::uint64_t& epoch) {
    std::vector<SideSample> out;
    if (cfg_.paper) {
      for (int i = 0; i < samples_per_point(); ++i) {
        throw_if_interrupted();
        const SideSample s = run_paper_sample(plan, key, ++epoch);
        if (i >= cfg_.warmup) out.push_back(s);
      }
      return out;
    }
    // The payload's writer (payload_writer()): a kernel per sample, as SSB's
    // is, unless the sender's kernel load holds every SM: then the copy engine,
    // from two payloads the GPU wrote first. Never the copy engine beside a
    // copy load (its copy would queue behind the load's, seconds at times).
    const std::uint64_t base = epoch;
    epoch += 2 + static_cast<std::uint64_t>(samples_per_point());
    const bool by_kernel = payload_writer(cfg_, key) == PayloadWriter::kernel;
    auto sample_epoch = [&](int i) { return base + 1 + (by_kernel ? i : (i & 1)); };
    const bool payload_by_gpu = writer_here() && mpi_.rank == 0;
    if (payload_by_gpu && !by_kernel) write_payloads(plan.message_bytes, {sample_epoch(0), sample_epoch(1)});
    const int n = static_cast<int>(loads.tasks.size());
    std::vector<std::vector<ClockSample>> syncs;
    if (n) {
      loads_->sync(n, clock_, cfg_.timeout_s, syncs);
      loads_->start(loads.tasks, cfg_.timeout_s);
      std::this_thread::sleep_for(std::chrono::duration<double>(kLoadSettleSeconds));
    }
    try {
      for (int i = 0; i < samples_per_point(); ++i) {
        throw_if_interrupted();
        if (n) loads_->keep_alive();
        const SideSample s = run_sample(plan, sample_epoch(i), payload_by_gpu, by_kernel ? nullptr : &payload_[i & 1]);
        if (i >= cfg_.warmup) out.push_back(s);
      }
    } catch (...) {
      // The loads stop; what went wrong in the sample is the error to report.
      if (n) try {
          loads_->stop();
        } catch (const Error&) {
        }
      throw;
    }
    if (n) finish_loads(n, loads, syncs, out);
    return out;
  }

  // The tasks of this point's loads on this rank (none for SSB or without a GPU here).
  PointLoads plan_loads(const PointKey& key, const LayoutPlan& plan) {
    PointLoads p;
    if (cfg_.paper || key.load == LoadKind::none || key.gpus == 0 || !writer_here() || loads_ == nullptr) return p;
    const LoadRate* found = cfg_.rate(key.rate);
    if (found == nullptr) throw Error(ErrorKind::check, "load rate " + key.rate + " is not in the configuration");
    const LoadRate rate = *found;
    p.info = Json::array();
    for (int i = 0; i < key.gpus; ++i) {
      LoadTask t;
      t.kind = key.load;
      t.access = key.access;
      t.target_bytes = i == 0 ? plan.post_bytes() : cfg_.load_bytes_for(plan.message_bytes);
      t.target = loads_->target(i, mem_.device() + plan.post_offset());
      t.timeout_s = cfg_.timeout_s;  // without a sign from this rank for this long (each sample gives one)
      double full = std::nan("");
      if (rate.fraction > 0 && rate.fraction < 1) {
        full = calibrate(i, key);
        t.rate_gbs = rate.fraction * full;
      } else if (rate.gbs > 0) {
        t.rate_gbs = rate.gbs;
      }
      const LoadGpu& g = loads_->gpu(i);
      const LoadShape s = g.engine->shape(t.kind, t.access, t.target_bytes);
      Json d = g.placement;
      d["target_bytes"] = t.target_bytes;
      d["shape"] = {{"engine", s.engine},
                    {"blocks", s.blocks},
                    {"threads_per_block", s.threads_per_block},
                    {"workers", s.workers},
                    {"chunk_bytes", s.chunk_bytes}};
      d["full_rate_gbs"] = std::isnan(full) ? Json(nullptr) : Json(full);
      d["target_gbs"] = t.rate_gbs > 0 ? Json(t.rate_gbs) : Json(nullptr);
      p.info.push_back(d);
      p.tasks.push_back(t);
    }
    return p;
  }

 private:
  // Warm-up and timed samples of a point. The CLI bounds both; a config from
  // elsewhere that would overflow an int is refused here.
  int samples_per_point() const {
    const long long n = static_cast<long long>(cfg_.warmup) + cfg_.reps;
    if (cfg_.warmup < 0 || cfg_.reps < 1 || n > kMaxSamplesPerPoint)
      throw usage_error("--reps " + std::to_string(cfg_.reps) + " and --warmup " + std::to_string(cfg_.warmup) +
                        ": reps at least 1, warm-up at least 0, together at most " +
                        std::to_string(kMaxSamplesPerPoint));
    return static_cast<int>(n);
  }

  // The point's two payloads, written by the GPU into device memory.
  void write_payloads(std::uint64_t bytes, const std::array<std::uint64_t, 2>& epochs) {
    for (int k = 0; k < 2; ++k) {
      if (payload_[k].size() < bytes) payload_[k] = dev_.alloc_device(bytes);
      write_payload(payload_[k].device(), bytes, epochs[k], last_payload_write_);
    }
  }

  // The payload of `epoch` written by a kernel of the whole GPU at `target` (a device address).
  void write_payload(std::byte* target, std::uint64_t bytes, std::uint64_t epoch, SideSample& into) {
    WriterTask t;
    t.access = Access::stacked;
    t.pre = target;
    t.pre_bytes = bytes;
    t.epoch = epoch;
    t.timeout_s = cfg_.timeout_s;
    writer_->start(t);
    record_writer(writer_->join(), into);
  }

  // One sample with the loads (if any) running: payload (the GPU's: copied
  // from `payload` or written by a kernel; else the CPU's), barrier, timed call.
  SideSample run_sample(const LayoutPlan& plan, std::uint64_t sample_epoch, bool by_gpu, const PinnedBuffer* payload) {
    const bool sender = mpi_.rank == 0;
    std::byte* mpi_buf = mem_.host() + plan.mpi_offset;
    SideSample s;
    if (by_gpu && payload) {
      copies_->start_to_host(0, mpi_buf, payload->device(), plan.message_bytes);
      wait_copy(*copies_, cfg_.timeout_s);
      s.writer_pre_s = last_payload_write_.writer_pre_s;
    } else if (by_gpu) {
      write_payload(mem_.device() + plan.mpi_offset, plan.message_bytes, sample_epoch, s);
    } else if (sender) {
      fill_payload(mpi_buf, plan.message_bytes, sample_epoch);
    }
    timed_call(plan, s, false);
    if (!sender && cfg_.check_payload)
      s.mismatched_bytes = count_payload_mismatches(mpi_buf, plan.message_bytes, sample_epoch);
    return s;
  }

  // The paper's sample: its writer writes the payload and, past its ready
  // flag, goes on writing during the send (SSB: it ends first).
  SideSample run_paper_sample(const LayoutPlan& plan, const PointKey& key, std::uint64_t sample_epoch) {
    const bool sender = mpi_.rank == 0;
    const std::uint64_t dev_epoch = sender ? sample_epoch : (sample_epoch | kReceiverEpochBit);
    std::byte* mpi_buf = mem_.host() + plan.mpi_offset;
    SideSample s;
    const bool post = plan.layout != Layout::SSB;
    if (writer_here()) {
      WriterTask t;
      t.access = key.access;
      t.pre = mem_.device() + plan.mpi_offset;
      t.pre_bytes = plan.message_bytes;
      if (post) {
        t.post = mem_.device() + plan.post_offset();
        t.post_bytes = plan.post_bytes();
      }
      t.epoch = dev_epoch;
      t.timeout_s = cfg_.timeout_s;
      writer_->start(t);
      if (post) writer_->wait_ready(dev_epoch, cfg_.timeout_s);
      else record_writer(writer_->join(), s);
    } else if (sender) {
      fill_payload(mpi_buf, plan.message_bytes, sample_epoch);
    }
    timed_call(plan, s, post && writer_here() && sender);
    if (post && writer_here()) {
      writer_->request_stop(dev_epoch);
      record_writer(writer_->join(), s);
    }
    if (!sender && cfg_.check_payload)
      s.mismatched_bytes = count_payload_mismatches(mpi_buf, plan.message_bytes, sample_epoch);
    return s;
  }

  // Irecv, barrier, then the timed send (rank 0) or wait (rank 1).
  void timed_call(const LayoutPlan& plan, SideSample& s, bool count_passes) {
    const bool sender = mpi_.rank == 0;
    std::byte* mpi_buf = mem_.host() + plan.mpi_offset;
    const int bytes = static_cast<int>(plan.message_bytes);
    MPI_Request recv = MPI_REQUEST_NULL;
    if (!sender) mpi_check(MPI_Irecv(mpi_buf, bytes, MPI_BYTE, 0, kTag, mpi_.comm, &recv), "MPI_Irecv");
    mpi_check(MPI_Barrier(mpi_.comm), "MPI_Barrier");
    std::uint64_t t0, t1;
    if (sender) {
      // The harness's own cost, measured in the conditions of this very send.
      s.empty_region_ns = clock_.empty_region_sample_ns();
      const std::uint64_t c0 = count_passes ? writer_->passes_completed() : 0;
      t0 = clock_.now();
      int rc;
      if (cfg_.send_mode == SendMode::send) {
        rc = MPI_Send(mpi_buf, bytes, MPI_BYTE, 1, kTag, mpi_.comm);
      } else {
        MPI_Request req;
        rc = MPI_Isend(mpi_buf, bytes, MPI_BYTE, 1, kTag, mpi_.comm, &req);
        if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
      }
      t1 = clock_.now();
      const std::uint64_t c1 = count_passes ? writer_->passes_completed() : 0;
      mpi_check(rc, cfg_.send_mode == SendMode::send ? "MPI_Send" : "MPI_Isend/MPI_Wait");
      s.send_ns = clock_.to_ns(t1 - t0);
      s.passes_during_send = c1 - c0;
    } else {
      t0 = clock_.now();
      const int rc = MPI_Wait(&recv, MPI_STATUS_IGNORE);
      t1 = clock_.now();
      mpi_check(rc, "MPI_Wait");
      s.wait_ns = clock_.to_ns(t1 - t0);
    }
    s.send_start_host_ns = clock_.to_ns(t0);
    s.send_end_host_ns = clock_.to_ns(t1);
  }

  // Stops the loads, fits each GPU's clock from syncs on both sides, and reads
  // the bytes each moved inside every timed call.
  void finish_loads(int n, PointLoads& loads, std::vector<std::vector<ClockSample>>& syncs,
                    std::vector<SideSample>& samples) {
    const std::vector<LoadOutcome> outcomes = loads_->stop();
    loads_->sync(n, clock_, cfg_.timeout_s, syncs);
    for (int g = 0; g < n; ++g) {
      const ClockFit fit = fit_clock(syncs[g], 0.5);
      for (SideSample& s : samples) {
        const auto b = loads_->bytes_between(g, fit.mapping, s.send_start_host_ns, s.send_end_host_ns);
        s.load_bytes[g] = b ? *b : std::nan("");
      }
      const LoadOutcome& o = outcomes[g];
      const LoadGpu& gpu = loads_->gpu(g);
      const double seconds = static_cast<double>(o.t_end_ticks - o.t_ready_ticks) / gpu.device->info().timer_hz;
      Json& d = loads.info[g];
      d["workers_started"] = o.workers_started;
      d["seconds"] = seconds;
      d["rate_over_point_gbs"] = seconds > 0 ? Json(gpu.engine->rate_gbs(o)) : Json(nullptr);
      d["clock_sync"] = {{"samples", fit.samples_total},
                         {"used", fit.samples_used},
                         {"precision_ns", fit.precision_ns},
                         {"residual_rms_ns", fit.residual_rms_ns}};
    }
  }

  // GPU i's full rate of the point's kind: on the sender's GPU measured in the
  // largest P2AB buffer, on the others in their own buffer.
  double calibrate(int i, const PointKey& key) {
    const std::uint64_t largest = *std::max_element(cfg_.sizes.begin(), cfg_.sizes.end());
    const LayoutPlan big = plan_layout(Layout::P2AB, largest, cfg_.load_bytes_for(largest),
                                       reinterpret_cast<std::uintptr_t>(mem_.host()));
    std::byte* target = loads_->target(i, mem_.device() + big.post_offset());
    return loads_->full_rate_gbs(i, key.load, key.access, target, cfg_.load_bytes_for(largest), cfg_.timeout_s);
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
  PinnedBuffer payload_[2];  // the point's two payloads, in device memory; they outlive the engines that use them
  std::unique_ptr<WriterEngine> writer_;
  std::unique_ptr<CopyEngine> copies_;  // the GPU's payload, copied from device memory
  LoadSet* loads_;
  const MpiContext& mpi_;
  const HostClock& clock_;
  PinnedBuffer& mem_;
  SideSample last_payload_write_;  // the GPU's write of the last payload
};

// Rank 1's samples, moved to rank 0 as raw bytes (both run this binary).
std::vector<SideSample> collect_receiver(const MpiContext& mpi, const std::vector<SideSample>& mine) {
  std::vector<SideSample> out(mine.size());
  const int bytes = static_cast<int>(mine.size() * sizeof(SideSample));
  if (mpi.rank == 1) mpi_check(MPI_Send(mine.data(), bytes, MPI_BYTE, 0, kTag + 1, mpi.comm), "MPI_Send");
  else mpi_check(MPI_Recv(out.data(), bytes, MPI_BYTE, 1, kTag + 1, mpi.comm, MPI_STATUS_IGNORE), "MPI_Recv");
  return out;
}

}  // namespace

std::uint64_t InterferenceConfig::load_bytes_for(std::uint64_t message_bytes) const {
  if (paper && !load_bytes.bytes) return message_bytes;
  if (load_bytes.message) return message_bytes;
  if (load_bytes.bytes) return load_bytes.bytes;
  return auto_load_bytes(sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end()));
}

const LoadRate* InterferenceConfig::rate(const std::string& label) const {
  for (const LoadRate& r : rates)
    if (r.label == label) return &r;
  return nullptr;
}

int InterferenceConfig::max_gpus() const {
  return paper || gpu_counts.empty() ? 1 : std::max(1, *std::max_element(gpu_counts.begin(), gpu_counts.end()));
}

std::vector<PointKey> sweep_points(const InterferenceConfig& config) {
  std::vector<PointKey> points;
  for (std::uint64_t size : config.sizes)
    for (std::size_t ai = 0; ai < config.access.size(); ++ai) {
      const Access a = config.access[ai];
      for (Layout l : config.layouts)
        if (l == Layout::SSB) points.push_back({size, l, a, LoadKind::none, 0, ""});
      for (LoadKind kind : config.paper ? std::vector<LoadKind>{LoadKind::write} : config.loads) {
        // The copy engine knows no access mode: its points go with the first one.
        if (kind == LoadKind::none || (!load_uses_threads(kind) && ai > 0)) continue;
        for (int gpus : config.paper ? std::vector<int>{1} : config.gpu_counts) {
          if (gpus == 0) continue;
          for (const LoadRate& rate : config.paper ? std::vector<LoadRate>{{"1", 1, 0}} : config.rates)
            for (Layout l : config.layouts)
              if (l != Layout::SSB) points.push_back({size, l, a, kind, gpus, rate.label});
        }
      }
    }
  return points;
}

PayloadWriter payload_writer(const InterferenceConfig& cfg, const PointKey& key) {
  if (cfg.writer == WriterSide::receiver) return PayloadWriter::cpu;
  if (cfg.paper || key.load == LoadKind::none || !load_uses_threads(key.load)) return PayloadWriter::kernel;
  return PayloadWriter::copy_engine;
}

bool gpu_on_rank(WriterSide side, int rank) {
  return side == WriterSide::both || (side == WriterSide::sender) == (rank == 0);
}

std::string describe(const PointKey& k) {
  std::string s = format_size(k.size) + " " + to_string(k.access) + " " + to_string(k.layout);
  if (k.load != LoadKind::none)
    s += std::string(" ") + to_string(k.load) + " x" + std::to_string(k.gpus) + (k.rate == "1" ? "" : " @" + k.rate);
  return s;
}

std::uint64_t interference_allocation_bytes(const InterferenceConfig& cfg) {
  std::uint64_t max_size = 0, max_load = 0;
  for (std::uint64_t n : cfg.sizes) {
    max_size = std::max(max_size, n);
    max_load = std::max(max_load, cfg.load_bytes_for(n));
  }
  return allocation_bytes(max_size, max_load);
}

void run_interference(const InterferenceConfig& cfg, Device& device, PinnedBuffer& mem, LoadSet* loads,
                      const MpiContext& mpi, const HostClock& clock, const std::set<PointKey>& done,
                      const PointSink& sink) {
  if (mpi.size != 2) throw usage_error("the interference probe needs exactly 2 MPI ranks");
  if (mem.size() < interference_allocation_bytes(cfg))
    throw Error(ErrorKind::check, "pinned memory too small for the sweep");
  PointRunner runner(cfg, device, loads, mpi, clock, mem);
  auto pinger = device.make_signal_engine();  // the paper writer's clock syncs
  const auto base = reinterpret_cast<std::uintptr_t>(mem.host());
  std::uint64_t epoch = 0;
  for (const PointKey& key : sweep_points(cfg)) {
    if (done.count(key)) continue;
    PointData point;
    point.key = key;
    point.plan = plan_layout(key.layout, key.size, cfg.load_bytes_for(key.size), base);
    PointLoads point_loads = runner.plan_loads(key, point.plan);
    // The paper writer's stamps go on the host timeline through a clock fit
    // from syncs on either side of the point (thesis 003 Sec. 4.3.2).
    const bool sender_clock = cfg.paper && mpi.rank == 0 && cfg.writer != WriterSide::receiver;
    std::vector<ClockSample> syncs;
    if (sender_clock) syncs = sync_batch(device, *pinger, clock, kSyncSamples, MemoryOrder::fence, cfg.timeout_s);
    std::vector<SideSample> mine = runner.run_point(key, point.plan, point_loads, epoch);
    if (sender_clock) {
      const auto after = sync_batch(device, *pinger, clock, kSyncSamples, MemoryOrder::fence, cfg.timeout_s);
      syncs.insert(syncs.end(), after.begin(), after.end());
      point.sender_clock = fit_clock(syncs, 0.5);
    }
    std::vector<SideSample> theirs = collect_receiver(mpi, mine);
    const std::vector<std::string> infos = gather_strings(mpi, point_loads.info.dump());
    if (mpi.rank == 0) {
      point.writer_shape = runner.writer_shape(key.access);
      point.sender = std::move(mine);
      point.receiver = std::move(theirs);
      point.sender_load = Json::parse(infos[0]);
      point.receiver_load = Json::parse(infos[1]);
      sink(point);
    }
  }
}

}  // namespace hetprobe
