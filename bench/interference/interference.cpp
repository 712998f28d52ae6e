// The protocol of the interference probe (DIGEST 4.5), on both ranks. A size:
//
//   plan:     each point's loads (rates calibrated once, before any round);
//   rounds:   every round visits each point of the size once, in the order
//             round_order() gives (seeded, the same on both ranks);
//   a visit:  side with the GPU (--writer): each GPU to load is synced with
//             the host clock; the loads start and run for kLoadSettleSeconds;
//             then per send: the sender's CPU writes the payload into the
//             send buffer (the same for SSB and every load); the receiver
//             posts its MPI_Irecv; MPI_Barrier; the sender spends its --gap,
//             then times MPI_Send (or Isend + Wait), the receiver its
//             MPI_Wait; the receiver checks the payload. Then the loads stop;
//             the clocks are synced again; each timed call is put on each
//             GPU's timer by the fit, and the bytes inside it read off the
//             load's stamps.
//   records:  once every round is done, rank 0 gets each point's samples.
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

#include "base/errors.hpp"
#include "base/interrupt.hpp"
#include "bench/core/rounds.hpp"
#include "bench/core/sizes.hpp"
#include "bench/interference/payload.hpp"
#include "bench/protocols/clock_sync.hpp"
#include "probes/load/load_names.hpp"
#include "probes/writer/writer_engine.hpp"

namespace hetprobe {

namespace {

constexpr int kTag = 4242;
constexpr int kSyncSamples = 16;  // clock-sync ping-pongs before and after each visit (--paper)
// Rank 1's samples of a point travel to rank 0 as one MPI message of int bytes.
constexpr long long kMaxSamplesPerPoint = 0x7FFFFFFF / static_cast<long long>(sizeof(SideSample));
// A load visit's outcome, kept per GPU in the point's load info under this key.
constexpr const char* kVisits = "visits";
// Receiver-side writers use epochs in their own range, so that a payload its
// own pre-write left behind is never mistaken for the sender's.
constexpr std::uint64_t kReceiverEpochBit = 1ull << 20;  // the payload keeps 21 epoch bits

// A point's loads on this rank: one task per GPU, rates resolved.
struct PointLoads {
  std::vector<LoadTask> tasks;
  std::vector<LoadEngineKind> engines;  // per GPU
  Json info = nullptr;                  // per GPU: placement, shape, full and target rates; then what it did
};

// The host threads a load runs beside its GPU work, with the CPUs they may
// use (`helper_cpus`, the load GPU's placement: a list, or null for any): the
// copy engine's feeder, or the host backend's workers.
Json host_threads_json(const LoadShape& shape, const Json& helper_cpus) {
  Json list = Json::array();
  const Json cpus = helper_cpus.is_string() ? helper_cpus : Json("any");
  if (shape.engine == LoadEngineKind::copy_engine)
    list.push_back({{"role", "copy feeder"}, {"count", 1}, {"cpus", cpus}});
  else if (shape.engine == LoadEngineKind::host_threads)
    list.push_back({{"role", "load workers"}, {"count", shape.workers + 1}, {"cpus", cpus}});
  return list;
}

class PointRunner {
 public:
  PointRunner(const InterferenceConfig& cfg, Device& dev, LoadSet* loads, const MpiContext& mpi, const HostClock& clock,
              PinnedBuffer& mem)
      : cfg_(cfg), dev_(dev), writer_(dev.make_writer_engine()), loads_(loads), mpi_(mpi), clock_(clock), mem_(mem) {}

  bool writer_here() const { return gpu_on_rank(cfg_.writer, mpi_.rank); }
  WriterShape writer_shape(Access access) const { return writer_->shape(access); }

  // A visit's timed sends: cold (after the --gap) and, with a gap, warm ones
  // interleaved with them (PointData::warm_sender).
  struct VisitSamples {
    std::vector<SideSample> cold, warm;
  };

  // One visit of a point: its loads (if any) start and settle, then its
  // warm-up and timed sends; `epoch` counts on, the same on both ranks.
  // `cold`: per timed send, whether the gap precedes it (warm_cold_order).
  VisitSamples visit(const PointKey& key, const LayoutPlan& plan, PointLoads& loads, std::uint64_t& epoch,
                     const std::vector<bool>& cold) {
    VisitSamples out;
    const int n = static_cast<int>(loads.tasks.size());
    std::vector<std::vector<ClockSample>> syncs;
    if (n) {
      loads_->sync(n, clock_, cfg_.timeout_s, syncs);
      loads_->start(loads.tasks, cfg_.timeout_s);
      std::this_thread::sleep_for(std::chrono::duration<double>(kLoadSettleSeconds));
    }
    try {
      const int sends = cfg_.warmup + static_cast<int>(cold.size());
      for (int i = 0; i < sends; ++i) {
        throw_if_interrupted();
        if (n) loads_->keep_alive();
        // The warm-up sends take the gap, so that the first timed one follows the same.
        const bool gap = i < cfg_.warmup || cold[static_cast<std::size_t>(i - cfg_.warmup)];
        const bool check = cfg_.payload_check == PayloadCheck::every_send ||
                           (cfg_.payload_check == PayloadCheck::last_of_visit && i == sends - 1);
        SideSample s = cfg_.paper ? run_paper_sample(plan, key, ++epoch, gap, check)
                                  : run_sample(plan, ++epoch, gap, check);
        s.visit_position = i - cfg_.warmup;
        if (i >= cfg_.warmup) (gap ? out.cold : out.warm).push_back(s);
      }
    } catch (...) {
      // The loads stop; what went wrong in the sample is the error to report.
      if (n) try {
          loads_->stop();
        } catch (const Error&) {
        }
      throw;
    }
    if (n) finish_loads(n, loads, syncs, out.cold);
    return out;
  }

  // The tasks of this point's loads on this rank (none for SSB or without a GPU here).
  PointLoads plan_loads(const PointKey& key, const LayoutPlan& plan) {
    PointLoads p;
    if (cfg_.paper || key.load == LoadKind::none || key.gpus == 0 || !writer_here() || loads_ == nullptr) return p;
    if (!key.rate) throw Error(ErrorKind::check, "the loaded point " + describe(key) + " has no load rate");
    const LoadRate& rate = *key.rate;
    const bool own = load_in_own_allocation(key.layout);
    p.info = Json::array();
    for (int i = 0; i < key.gpus; ++i) {
      LoadTask t;
      t.kind = key.load;
      t.access = key.access;
      t.target_bytes = i == 0 && !own ? plan.post_bytes() : cfg_.load_bytes_for(plan.message_bytes);
      t.target = loads_->target(i, mem_.device() + plan.post_offset(), own);
      t.timeout_s = cfg_.timeout_s;  // without a sign from this rank for this long (each sample gives one)
      double full = std::nan("");
      if (rate.fraction > 0 && rate.fraction < 1) {
        full = calibrate(i, key, own);
        t.rate_gbs = rate.fraction * full;
      } else if (rate.gbs > 0) {
        t.rate_gbs = rate.gbs;
      }
      const LoadGpu& g = loads_->gpu(i);
      const LoadShape s = g.engine->shape(t.kind, t.access, t.target_bytes);
      Json d = own ? g.own_placement : g.placement;
      d["target_bytes"] = t.target_bytes;
      d["shape"] = {{"engine", kLoadEngineKindNames.name(s.engine)},
                    {"blocks", s.blocks},
                    {"threads_per_block", s.threads_per_block},
                    {"workers", s.workers},
                    {"chunk_bytes", s.chunk_bytes}};
      d["full_rate_gbs"] = std::isnan(full) ? Json(nullptr) : Json(full);
      d["target_gbs"] = t.rate_gbs > 0 ? Json(t.rate_gbs) : Json(nullptr);
      d["host_threads"] = host_threads_json(s, g.placement["helper_cpus"]);
      d[kVisits] = Json::array();
      p.info.push_back(d);
      p.tasks.push_back(t);
      p.engines.push_back(s.engine);
    }
    return p;
  }

 private:
  // One send: the sender's CPU writes the payload (the same preparation for
  // SSB and every load), barrier, the timed call, the receiver's check.
  SideSample run_sample(const LayoutPlan& plan, std::uint64_t sample_epoch, bool gap, bool check) {
    const bool sender = mpi_.rank == 0;
    std::byte* mpi_buf = mem_.host() + plan.mpi_offset;
    SideSample s;
    if (sender) fill_payload(mpi_buf, plan.message_bytes, sample_epoch);
    timed_call(plan, s, false, gap);
    if (!sender && check) check_payload(s, mpi_buf, plan.message_bytes, sample_epoch);
    return s;
  }

  // The paper's sample: its writer writes the payload and, past its ready
  // flag, goes on writing during the send (SSB: it ends first).
  SideSample run_paper_sample(const LayoutPlan& plan, const PointKey& key, std::uint64_t sample_epoch, bool gap,
                              bool check) {
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
    timed_call(plan, s, post && writer_here() && sender, gap);
    if (post && writer_here()) {
      writer_->request_stop(dev_epoch);
      record_writer(writer_->join(), s);
    }
    if (!sender && check) check_payload(s, mpi_buf, plan.message_bytes, sample_epoch);
    return s;
  }

  // The receiver: counts the bytes of this sample's payload not as sent.
  static void check_payload(SideSample& s, const std::byte* buf, std::uint64_t bytes, std::uint64_t epoch) {
    s.mismatched_bytes = count_payload_mismatches(buf, bytes, epoch);
    s.payload_checked = true;
  }

  // Irecv, barrier, then the timed send (rank 0), after the --gap where `gap`
  // is set, or the wait (rank 1).
  void timed_call(const LayoutPlan& plan, SideSample& s, bool count_passes, bool gap) {
    const bool sender = mpi_.rank == 0;
    std::byte* mpi_buf = mem_.host() + plan.mpi_offset;
    const int bytes = static_cast<int>(plan.message_bytes);
    MPI_Request recv = MPI_REQUEST_NULL;
    if (!sender) mpi_check(MPI_Irecv(mpi_buf, bytes, MPI_BYTE, 0, kTag, mpi_.comm, &recv), "MPI_Irecv");
    mpi_check(MPI_Barrier(mpi_.comm), "MPI_Barrier");
    std::uint64_t t0, t1;
    if (sender) {
      const std::uint64_t g0 = clock_.now();
      if (gap) gap_sink_ += spend_gap(cfg_.gap, gap_buffer_);
      s.gap_ns = clock_.to_ns(clock_.now() - g0);
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
      // The load's own traffic: stamps written and flags read over the link
      // (the copy engine's feeder stamps from the host: two kernel stamps a visit).
      const bool stamps_over_link = loads.engines[g] != LoadEngineKind::copy_engine;
      const std::uint64_t control = (stamps_over_link ? o.stamps : 2) * kStampBytes +
                                    o.control_reads * kControlReadBytes;
      loads.info[g][kVisits].push_back(Json{{"workers_started", o.workers_started},
                                            {"control_bytes", control},
                                            {"seconds", seconds},
                                            {"rate_gbs", seconds > 0 ? Json(gpu.engine->rate_gbs(o)) : Json(nullptr)},
                                            {"clock_sync",
                                             {{"samples", fit.samples_total},
                                              {"used", fit.samples_used},
                                              {"precision_ns", fit.precision_ns},
                                              {"residual_rms_ns", fit.residual_rms_ns}}}});
    }
  }

  // GPU i's full rate of the point's kind: on the sender's GPU measured in the
  // largest P2AB buffer (OWN: its own buffer), on the others in their own.
  double calibrate(int i, const PointKey& key, bool own) {
    const std::uint64_t largest = *std::max_element(cfg_.sizes.begin(), cfg_.sizes.end());
    const LayoutPlan big = plan_layout(Layout::P2AB, largest, cfg_.load_bytes_for(largest),
                                       reinterpret_cast<std::uintptr_t>(mem_.host()));
    std::byte* target = loads_->target(i, mem_.device() + big.post_offset(), own);
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
  std::unique_ptr<WriterEngine> writer_;
  LoadSet* loads_;
  const MpiContext& mpi_;
  const HostClock& clock_;
  PinnedBuffer& mem_;
  std::vector<std::uint64_t> gap_buffer_;  // --gap sweep:SIZE's memory
  std::uint64_t gap_sink_ = 0;             // what the sweeps computed, kept from the optimiser
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

std::vector<bool> warm_cold_order(std::uint64_t seed, std::uint64_t size, int round, std::size_t point, int reps) {
  const auto n = static_cast<std::size_t>(reps);
  // A stream of its own, apart from the rounds' orders of the points.
  const std::uint64_t stream = size ^ ((static_cast<std::uint64_t>(point) + 1) * 0xD1B54A32D192ED03ull);
  const std::vector<std::size_t> order = round_order(seed, stream, round, 2 * n);
  std::vector<bool> cold(2 * n);
  for (std::size_t j = 0; j < 2 * n; ++j) cold[j] = order[j] < n;
  return cold;
}

std::uint64_t InterferenceConfig::load_bytes_for(std::uint64_t message_bytes) const {
  if (paper && !load_bytes.bytes) return message_bytes;
  if (load_bytes.message) return message_bytes;
  if (load_bytes.bytes) return load_bytes.bytes;
  return auto_load_bytes(sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end()));
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
        if (l == Layout::SSB) points.push_back({size, l, a, LoadKind::none, 0, std::nullopt});
      for (LoadKind kind : config.paper ? std::vector<LoadKind>{LoadKind::write} : config.loads) {
        // The copy engine knows no access mode: its points go with the first one.
        if (kind == LoadKind::none || (!load_uses_threads(kind) && ai > 0)) continue;
        for (int gpus : config.paper ? std::vector<int>{1} : config.gpu_counts) {
          if (gpus == 0) continue;
          for (const LoadRate& rate : config.paper ? std::vector<LoadRate>{{"1", 1, 0}} : config.rates)
            for (Layout l : config.layouts)
              if (l != Layout::SSB) points.push_back({size, l, a, kind, gpus, rate});
        }
      }
    }
  return points;
}

void check_sampling(const InterferenceConfig& cfg) {
  const long long n = static_cast<long long>(cfg.warmup) + cfg.reps;
  if (cfg.warmup < 0 || cfg.reps < 1 || cfg.rounds < 1 || n > kMaxSamplesPerPoint ||
      static_cast<long long>(cfg.reps) * cfg.rounds > kMaxSamplesPerPoint)
    throw usage_error("--rounds " + std::to_string(cfg.rounds) + ", --reps " + std::to_string(cfg.reps) +
                      " and --warmup " + std::to_string(cfg.warmup) +
                      ": rounds and reps at least 1, warm-up at least 0, rounds x reps at most " +
                      std::to_string(kMaxSamplesPerPoint) + " (a point's samples travel in one MPI message)");
}

PayloadWriter payload_writer(const InterferenceConfig& cfg) {
  return cfg.paper && cfg.writer != WriterSide::receiver ? PayloadWriter::kernel : PayloadWriter::cpu;
}

bool gpu_on_rank(WriterSide side, int rank) {
  return side == WriterSide::both || (side == WriterSide::sender) == (rank == 0);
}

std::string describe(const PointKey& k) {
  std::string s = format_size(k.size) + " " + to_string(k.access) + " " + to_string(k.layout);
  if (k.load != LoadKind::none) {
    s += ' ';
    s += load_label(to_string(k.load), k.gpus, k.rate);
  }
  return s;
}

std::uint64_t interference_allocation_bytes(const InterferenceConfig& cfg) {
  // The secondary region only where the sender GPU's load lands in this
  // allocation (PSB, PCB, P2AB: calibrate() measures it there): pinning
  // 512 MiB that SSB and OWN never touch cost 0.37 s a launch (H200).
  const bool secondary = std::any_of(cfg.layouts.begin(), cfg.layouts.end(),
                                     [](Layout l) { return l != Layout::SSB && !load_in_own_allocation(l); });
  std::uint64_t max_size = 0, max_load = 0;
  for (std::uint64_t n : cfg.sizes) {
    max_size = std::max(max_size, n);
    if (secondary) max_load = std::max(max_load, cfg.load_bytes_for(n));
  }
  return allocation_bytes(max_size, max_load);
}

void run_interference(const InterferenceConfig& cfg, Device& device, PinnedBuffer& mem, LoadSet* loads,
                      const MpiContext& mpi, const HostClock& clock, const std::set<PointKey>& done,
                      const PointSink& sink) {
  if (mpi.size != 2) throw usage_error("the interference probe needs exactly 2 MPI ranks");
  check_sampling(cfg);
  if (mem.size() < interference_allocation_bytes(cfg))
    throw Error(ErrorKind::check, "pinned memory too small for the sweep");
  PointRunner runner(cfg, device, loads, mpi, clock, mem);
  auto pinger = device.make_signal_engine();  // the paper writer's clock syncs
  const auto base = reinterpret_cast<std::uintptr_t>(mem.host());
  // The paper writer's stamps go on the host timeline through a clock fit
  // from syncs on either side of each visit (thesis 003 Sec. 4.3.2).
  const bool sender_clock = cfg.paper && mpi.rank == 0 && cfg.writer != WriterSide::receiver;
  const std::vector<PointKey> sweep = sweep_points(cfg);
  // With a gap, every visit times warm sends beside its cold ones.
  const bool paired = cfg.gap.kind != GapKind::none;
  std::uint64_t epoch = 0;
  for (std::uint64_t size : cfg.sizes) {
    std::vector<PointKey> keys;
    for (const PointKey& k : sweep)
      if (k.size == size) keys.push_back(k);
    // A size is measured whole: its ratios pair with its own rounds' SSB.
    if (std::all_of(keys.begin(), keys.end(), [&](const PointKey& k) { return done.count(k) > 0; })) continue;
    std::vector<PointData> points(keys.size());
    std::vector<PointLoads> plans(keys.size());
    std::vector<std::vector<SideSample>> mine(keys.size());
    std::vector<std::vector<ClockSample>> syncs(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      points[i].key = keys[i];
      points[i].plan = plan_layout(keys[i].layout, size, cfg.load_bytes_for(size), base);
      plans[i] = runner.plan_loads(keys[i], points[i].plan);  // calibrates paced rates, before any round
    }
    for (int round = 0; round < cfg.rounds; ++round) {
      const std::vector<std::size_t> order = round_order(cfg.seed, size, round, keys.size());
      for (std::size_t pos = 0; pos < order.size(); ++pos) {
        const std::size_t i = order[pos];
        points[i].positions.push_back(static_cast<int>(pos));
        auto sync = [&] {
          const auto got = sync_batch(device, *pinger, clock, kSyncSamples, MemoryOrder::fence, cfg.timeout_s);
          syncs[i].insert(syncs[i].end(), got.begin(), got.end());
        };
        if (sender_clock) sync();
        const std::vector<bool> cold = paired ? warm_cold_order(cfg.seed, size, round, i, cfg.reps)
                                              : std::vector<bool>(static_cast<std::size_t>(cfg.reps), true);
        auto got = runner.visit(keys[i], points[i].plan, plans[i], epoch, cold);
        for (SideSample& s : got.cold) {
          s.round = round;
          mine[i].push_back(s);
        }
        for (SideSample& s : got.warm) {  // kept on rank 0 only: the sender's times
          s.round = round;
          points[i].warm_sender.push_back(s);
        }
        if (sender_clock) sync();
      }
    }
    for (std::size_t i = 0; i < keys.size(); ++i) {
      PointData& point = points[i];
      if (sender_clock) point.sender_clock = fit_clock(syncs[i], 0.5);
      std::vector<SideSample> theirs = collect_receiver(mpi, mine[i]);
      const std::vector<std::string> infos = gather_strings(mpi, plans[i].info.dump());
      if (mpi.rank != 0) continue;
      point.writer_shape = runner.writer_shape(point.key.access);
      point.sender = std::move(mine[i]);
      point.receiver = std::move(theirs);
      point.sender_load = Json::parse(infos[0]);
      point.receiver_load = Json::parse(infos[1]);
    }
    if (mpi.rank != 0) continue;
    for (const PointData& point : points) {
      if (done.count(point.key)) continue;
      const PointData* ssb = nullptr;
      for (const PointData& other : points)
        if (other.key.layout == Layout::SSB && other.key.access == point.key.access && &other != &point) ssb = &other;
      sink(point, ssb);
    }
  }
}

}  // namespace hetprobe
