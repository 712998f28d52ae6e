#include "bench/halo/halo.hpp"

#include <mpi.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <memory>

#include "base/errors.hpp"
#include "base/interrupt.hpp"
#include "base/stats.hpp"
#include "bench/core/rounds.hpp"
#include "bench/core/sizes.hpp"
#include "bench/protocols/clock_sync.hpp"
#include "probes/copy/copy_engine.hpp"
#include "probes/halo/halo_engine.hpp"
#include "probes/signal/host_signal_ops.hpp"

namespace hetprobe {

std::string HaloSetup::label() const {
  const bool baseline = variant == HaloVariant::baseline;
  return std::string(to_string(variant)) + " " + to_string(send_mode) + " " +
         (baseline ? to_string(receive_wait) : to_string(signal)) + " " + to_string(staging) + " " +
         std::to_string(threads_per_block) + "t" +
         (poll_pause_ns > 0 ? " pause " + std::to_string(poll_pause_ns) + "ns" : "") +
         (parts.is_whole()   ? " whole"
          : parts.is_bytes() ? " part " + to_string(parts)
                             : "");
}

std::vector<HaloSetup> HaloConfig::setups() const {
  std::vector<HaloSetup> out;
  for (int threads : threads_per_block)
    for (HaloVariant v : variants)
      for (SendMode send : send_modes)
        for (HaloStaging staging : stagings)
          for (PartSize part : parts) {
            HaloSetup s{v, send, HaloReceiveWait::waitall, HaloSignal::channel, staging, threads, 0, part};
            if (v == HaloVariant::baseline)
              for (HaloReceiveWait w : receive_waits) out.push_back((s.receive_wait = w, s));
            else
              for (HaloSignal g : signals)
                for (std::uint64_t pause : poll_pause_ns) out.push_back((s.signal = g, s.poll_pause_ns = pause, s));
          }
  return out;
}

Json HaloConfig::to_json() const {
  Json v = Json::array(), send = Json::array(), wait = Json::array(), sig = Json::array(), stage = Json::array(),
       part_sizes = Json::array();
  for (auto x : variants) v.push_back(to_string(x));
  for (SendMode m : send_modes) send.push_back(to_string(m));
  for (HaloReceiveWait w : receive_waits) wait.push_back(to_string(w));
  for (auto x : signals) sig.push_back(to_string(x));
  for (auto x : stagings) stage.push_back(to_string(x));
  for (PartSize p : parts) part_sizes.push_back(hetprobe::to_json(p));
  return {{"variants", v},
          {"send_mode", send},
          {"receive_wait", wait},
          {"signal", sig},
          {"staging", stage},
          {"threads_per_block", threads_per_block},
          {"parts", part_sizes},
          {"poll_pause_ns", poll_pause_ns},
          {"long_bytes", long_bytes == 0 ? Json("auto") : Json(long_bytes)},
          {"rounds", rounds},
          {"iterations", iterations},
          {"warmup", warmup},
          {"seed", seed},
          {"timeout_s", timeout_s},
          {"timeline", to_string(timeline)}};
}

namespace {

constexpr int kSyncSamples = 16;
constexpr std::size_t kPage = 4096;

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

// Every buffer, flag and stamp of one rank's exchange, allocated once.
struct HaloMemory {
  // staging and recv_staging (device): memcpy only, what pack writes and what unpack reads; tail (device): queue
  PinnedBuffer send, recv, halo, control, staging, recv_staging, tail;
  std::vector<std::size_t> send_at, recv_at;  // offsets into send (and staging) / recv
  HaloMessageArgs *pack_args = nullptr, *unpack_args = nullptr;
  FlagLine *send_ready = nullptr, *unpack_ready = nullptr;
  unsigned long long* queue = nullptr;  // one entry per send
  HaloStamp *pack_stamps = nullptr, *unpack_stamps = nullptr;

  template <class T>
  T* dev(T* host_ptr) const {
    return reinterpret_cast<T*>(control.device_at(reinterpret_cast<std::byte*>(host_ptr)));
  }
};

HaloMemory allocate(Device& device, const HaloLayout& layout, bool staging, bool queue) {
  HaloMemory m;
  std::size_t send_total = 0, recv_total = 0;
  for (const auto& s : layout.sends)
    m.send_at.push_back(std::exchange(send_total, send_total + round_up(s.bytes, kPage)));
  for (const auto& r : layout.recvs)
    m.recv_at.push_back(std::exchange(recv_total, recv_total + round_up(r.bytes, kPage)));
  m.send = device.alloc_pinned(std::max<std::size_t>(send_total, kPage));
  m.recv = device.alloc_pinned(std::max<std::size_t>(recv_total, kPage));
  m.halo = device.alloc_device(std::max<std::size_t>(recv_total, kPage));
  if (staging) m.staging = device.alloc_device(std::max<std::size_t>(send_total, kPage));
  if (staging) m.recv_staging = device.alloc_device(std::max<std::size_t>(recv_total, kPage));
  if (queue) m.tail = device.alloc_device(128);
  const std::size_t ns = layout.sends.size(), nr = layout.recvs.size();
  const std::size_t args_bytes = round_up((ns + nr) * sizeof(HaloMessageArgs), 128);
  const std::size_t queue_bytes = round_up(ns * sizeof(unsigned long long), 128);
  m.control = device.alloc_pinned(args_bytes + queue_bytes + (ns + nr) * (sizeof(FlagLine) + sizeof(HaloStamp)));
  std::memset(m.control.host(), 0, m.control.size());
  std::byte* p = m.control.host();
  m.pack_args = reinterpret_cast<HaloMessageArgs*>(p);
  m.unpack_args = m.pack_args + ns;
  m.queue = reinterpret_cast<unsigned long long*>(p + args_bytes);
  m.send_ready = reinterpret_cast<FlagLine*>(p + args_bytes + queue_bytes);
  m.unpack_ready = m.send_ready + ns;
  m.pack_stamps = reinterpret_cast<HaloStamp*>(m.unpack_ready + nr);
  m.unpack_stamps = m.pack_stamps + ns;
  for (std::size_t i = 0; i < ns; ++i)
    m.pack_args[i] = {reinterpret_cast<unsigned char*>(m.send.device() + m.send_at[i]),
                      nullptr,
                      layout.sends[i].bytes,
                      static_cast<std::uint64_t>(layout.rank),
                      static_cast<std::uint64_t>(layout.sends[i].index),
                      0};
  for (std::size_t i = 0; i < nr; ++i)
    m.unpack_args[i] = {reinterpret_cast<unsigned char*>(m.recv.device() + m.recv_at[i]),
                        reinterpret_cast<unsigned char*>(m.halo.device() + m.recv_at[i]),
                        layout.recvs[i].bytes,
                        static_cast<std::uint64_t>(layout.recvs[i].recv_from),
                        static_cast<std::uint64_t>(layout.recvs[i].index),
                        0};
  return m;
}

// notify-stacked's long messages: at least `long_bytes`; 0 means half the largest message.
std::uint64_t resolve_long_bytes(const HaloConfig& c, const HaloLayout& l) {
  if (c.long_bytes > 0) return c.long_bytes;
  std::uint64_t largest = 0;
  for (const auto& s : l.sends) largest = std::max(largest, s.bytes);
  for (const auto& r : l.recvs) largest = std::max(largest, r.bytes);
  return std::max<std::uint64_t>(1, largest / 2);
}

// Raw host ticks and device stamps of one iteration, converted after the fit.
struct RawIteration {
  int round = 0;
  std::uint64_t t0 = 0, t1 = 0;
  // memcpy staging: a send's copy to the host started and ended, a receive's copy to the device ended
  std::vector<std::uint64_t> send, recv, copy_started, copied, recv_copied;
  std::vector<HaloStamp> pack, unpack;
};

class Exchange {
 public:
  Exchange(const HaloConfig& c, const HaloLayout& l, Device& d, const MpiContext& mpi, const HostClock& clock)
      : c_(c), l_(l), halo_(d.make_halo_engine()), mpi_(mpi), clock_(clock), long_bytes_(resolve_long_bytes(c, l)) {
    bool staging = false, queue = false;
    for (const HaloSetup& s : c.setups()) {
      staging |= s.staging == HaloStaging::memcpy;
      queue |= s.signal == HaloSignal::queue && s.variant != HaloVariant::baseline;
    }
    m_ = allocate(d, l, staging, queue);
    if (staging) copies_ = d.make_copy_engine();
  }

  std::uint64_t long_bytes() const { return long_bytes_; }

  // Points pack and unpack at the pinned or the staging buffers and marks
  // the stacked variant's long messages.
  void configure(const HaloSetup& s) {
    const bool stacked = s.long_messages_on_grid(), staged = s.staging == HaloStaging::memcpy;
    for (std::size_t i = 0; i < l_.sends.size(); ++i) {
      std::byte* base = staged ? m_.staging.device() : m_.send.device();
      m_.pack_args[i].buffer = reinterpret_cast<unsigned char*>(base + m_.send_at[i]);
      m_.pack_args[i].whole_grid = stacked && l_.sends[i].bytes >= long_bytes_;
    }
    for (std::size_t i = 0; i < l_.recvs.size(); ++i) {
      std::byte* base = staged ? m_.recv_staging.device() : m_.recv.device();
      m_.unpack_args[i].buffer = reinterpret_cast<unsigned char*>(base + m_.recv_at[i]);
      m_.unpack_args[i].whole_grid = stacked && l_.recvs[i].bytes >= long_bytes_;
    }
  }

  // One iteration; returns its raw times and the shapes of the pack (or stacked) and unpack launches.
  RawIteration iterate(const HaloSetup& s, std::uint64_t iteration, HaloShape& shape, HaloShape& unpack_shape) {
    const std::size_t ns = l_.sends.size(), nr = l_.recvs.size();
    RawIteration raw;
    raw.send.assign(ns, 0);
    raw.recv.assign(nr, 0);
    raw.copy_started.assign(s.staging == HaloStaging::memcpy ? ns : 0, 0);
    raw.copied.assign(s.staging == HaloStaging::memcpy ? ns : 0, 0);
    raw.recv_copied.assign(s.staging == HaloStaging::memcpy ? nr : 0, 0);
    std::vector<MPI_Request> recvs(nr, MPI_REQUEST_NULL), sends(ns, MPI_REQUEST_NULL);
    mpi_check(MPI_Barrier(mpi_.comm), "MPI_Barrier");
    raw.t0 = clock_.now();
    for (std::size_t i = 0; i < nr; ++i)
      mpi_check(MPI_Irecv(m_.recv.host() + m_.recv_at[i], static_cast<int>(l_.recvs[i].bytes), MPI_BYTE,
                          l_.recvs[i].recv_from, l_.recvs[i].index, mpi_.comm, &recvs[i]),
                "MPI_Irecv");
    auto send = [&](std::size_t i) {
      void* buf = m_.send.host() + m_.send_at[i];
      const auto& msg = l_.sends[i];
      if (s.send_mode == SendMode::send)
        mpi_check(MPI_Send(buf, static_cast<int>(msg.bytes), MPI_BYTE, msg.send_to, msg.index, mpi_.comm), "MPI_Send");
      else
        mpi_check(MPI_Isend(buf, static_cast<int>(msg.bytes), MPI_BYTE, msg.send_to, msg.index, mpi_.comm, &sends[i]),
                  "MPI_Isend");
      raw.send[i] = clock_.now();
    };
    switch (s.variant) {
      case HaloVariant::baseline:
        shape = halo_->start(launch(s, HaloStage::pack, iteration));
        halo_->join(HaloStage::pack);
        send_when_packed(s, send, raw, iteration, true);
        complete_receives(s, recvs, raw, iteration);
        unpack_shape = halo_->start(launch(s, HaloStage::unpack, iteration));
        halo_->join(HaloStage::unpack);
        break;
      case HaloVariant::notify_stream:
        unpack_shape = halo_->start(launch(s, HaloStage::unpack, iteration));
        shape = halo_->start(launch(s, HaloStage::pack, iteration));
        send_when_packed(s, send, raw, iteration, false);  // phase A
        complete_receives(s, recvs, raw, iteration);       // phase B
        halo_->join(HaloStage::pack);
        halo_->join(HaloStage::unpack);
        break;
      case HaloVariant::notify_stacked:
        shape = halo_->start(launch(s, HaloStage::stacked, iteration));
        send_when_packed(s, send, raw, iteration, false);
        complete_receives(s, recvs, raw, iteration);
        halo_->join(HaloStage::stacked);
        break;
    }
    if (s.send_mode == SendMode::isend)
      mpi_check(MPI_Waitall(static_cast<int>(ns), sends.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    raw.t1 = clock_.now();
    raw.pack.assign(m_.pack_stamps, m_.pack_stamps + ns);
    raw.unpack.assign(m_.unpack_stamps, m_.unpack_stamps + nr);
    return raw;
  }

 private:
  HaloArgs args(const HaloSetup& s, bool pack, std::uint64_t iteration) const {
    const bool notify = s.variant != HaloVariant::baseline;
    const bool queue = notify && pack && s.signal == HaloSignal::queue;
    HaloArgs a{m_.dev(pack ? m_.pack_args : m_.unpack_args),
               pack ? l_.sends.size() : l_.recvs.size(),
               notify && !queue ? m_.dev(pack ? m_.send_ready : m_.unpack_ready) : nullptr,
               queue ? m_.dev(m_.queue) : nullptr,
               queue ? reinterpret_cast<unsigned long long*>(m_.tail.device()) : nullptr,
               m_.dev(pack ? m_.pack_stamps : m_.unpack_stamps),
               iteration,
               0,
               0,
               PartSize{},  // the engine's to set
               nullptr};
    return a;
  }

  HaloLaunch launch(const HaloSetup& s, HaloStage which, std::uint64_t iteration) const {
    HaloLaunch l;
    l.stage = which;
    l.args = args(s, which != HaloStage::unpack, iteration);
    l.host_messages = which == HaloStage::unpack ? m_.unpack_args : m_.pack_args;
    l.parts = s.parts;
    // Every stage runs all its parts at once (every unpack of notify-stream
    // must be resident: none may wait behind a message whose flag has not
    // come), notify-stream's pack too: each message still goes to MPI when
    // its last part ends. Packed message by message (as many blocks as the
    // longest message has parts), its pack moved 14-15 GB/s at cube 400 and
    // cube 200 took 2 blocks; all at once, 30-34 GB/s, and the cube-200
    // iteration took 170-223 us instead of 284-300 (two H100s, three
    // alternating launches each, notebooks/data/halo-delivery/).
    if (which == HaloStage::stacked) {
      l.unpack = args(s, false, iteration);
      l.host_unpack_messages = m_.unpack_args;
    }
    l.timeout_s = c_.timeout_s;
    l.poll_pause_ns = static_cast<double>(s.poll_pause_ns);
    l.threads_per_block = s.threads_per_block;
    return l;
  }

  // Host-clock ticks at which a wait of this iteration gives up.
  std::uint64_t deadline() const {
    return clock_.now() + static_cast<std::uint64_t>(c_.timeout_s * 1e9 * clock_.ticks_per_ns());
  }

  // Phase A: every message goes out as soon as it is packed (the baseline's
  // all are, after its pack kernel): the device says so by its flag or in the
  // queue; with memcpy staging its copy to pinned memory goes first, and the
  // send when the copy has ended.
  template <class Send>
  void send_when_packed(const HaloSetup& s, Send& send, RawIteration& raw, std::uint64_t iteration, bool all_packed) {
    enum State : char { packing, copying, sent };
    const std::size_t ns = l_.sends.size();
    const bool memcpy = s.staging == HaloStaging::memcpy;
    const bool queue = !all_packed && s.signal == HaloSignal::queue;
    std::vector<State> state(ns, packing);
    std::size_t left = ns, head = 0;
    HostSignalOps host;
    auto packed = [&](std::size_t i) {
      if (memcpy) {
        raw.copy_started[i] = clock_.now();
        copies_->start_to_host(static_cast<int>(i), m_.send.host() + m_.send_at[i], m_.staging.device() + m_.send_at[i],
                               l_.sends[i].bytes);
        state[i] = copying;
      } else {
        send(i);
        state[i] = sent;
        --left;
      }
    };
    const std::uint64_t give_up = deadline();
    for (unsigned k = 0; left > 0; ++k) {
      if (all_packed) {
        for (std::size_t i = 0; i < ns; ++i) packed(i);
        all_packed = false;
      } else if (queue) {
        for (unsigned long long e; head < ns && halo_queue_entry_of(e = host.load_acquire(&m_.queue[head]), iteration);
             ++head) {
          const std::uint64_t i = e & 0xFFFFFFull;
          if (i >= ns || state[i] != packing)
            throw Error(ErrorKind::check, "halo task queue entry " + std::to_string(head) + " names message " +
                                              std::to_string(i) + " (of " + std::to_string(ns) +
                                              ") again or out of range");
          packed(i);
        }
      } else {
        for (std::size_t i = 0; i < ns; ++i)
          if (state[i] == packing && host.load_acquire(&m_.send_ready[i].value) >= iteration) packed(i);
      }
      if (memcpy)
        for (std::size_t i = 0; i < ns; ++i)
          if (state[i] == copying && copies_->done(static_cast<int>(i))) {
            raw.copied[i] = clock_.now();
            send(i);
            state[i] = sent;
            --left;
          }
      if ((k & 0xFFF) != 0xFFF) continue;
      throw_if_interrupted();
      if (clock_.now() > give_up)
        throw Error(ErrorKind::timeout, std::to_string(left) + " halo message(s) were never packed" +
                                            (memcpy ? " and copied" : "") + " within " + std::to_string(c_.timeout_s) +
                                            " s");
    }
  }

  // Waitall (baseline) or a Testany loop; with memcpy staging each received
  // message is copied to device memory on its own lane; with the notify
  // variants each message's unpack-ready flag goes up as soon as it is there
  // (received, or copied: phase B). Returns once every receive (and copy) ended.
  void complete_receives(const HaloSetup& s, std::vector<MPI_Request>& recvs, RawIteration& raw,
                         std::uint64_t iteration) {
    const bool notify = s.variant != HaloVariant::baseline, staged = s.staging == HaloStaging::memcpy;
    const std::size_t nr = recvs.size(), lane0 = l_.sends.size();  // receive i copies on lane lane0 + i
    HostSignalOps host;
    std::vector<char> copying(nr, 0);
    std::size_t copies = 0;
    auto ready = [&](std::size_t i) {
      if (notify) host.store_release(&m_.unpack_ready[i].value, iteration);
    };
    auto received = [&](std::size_t i) {
      if (!staged) return ready(i);
      copies_->start_to_device(static_cast<int>(lane0 + i), m_.recv_staging.device() + m_.recv_at[i],
                               m_.recv.host() + m_.recv_at[i], l_.recvs[i].bytes);
      copying[i] = 1;
      ++copies;
    };
    auto poll_copies = [&] {
      for (std::size_t i = 0; copies > 0 && i < nr; ++i)
        if (copying[i] && copies_->done(static_cast<int>(lane0 + i))) {
          raw.recv_copied[i] = clock_.now();
          copying[i] = 0;
          --copies;
          ready(i);
        }
    };
    const std::uint64_t give_up = deadline();
    auto check = [&](std::size_t left, const char* what) {
      throw_if_interrupted();
      if (clock_.now() > give_up)
        throw Error(ErrorKind::timeout, std::to_string(left) + " halo " + what + " did not complete within " +
                                            std::to_string(c_.timeout_s) + " s");
    };
    if (!notify && s.receive_wait == HaloReceiveWait::waitall) {
      mpi_check(MPI_Waitall(static_cast<int>(nr), recvs.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
      std::fill(raw.recv.begin(), raw.recv.end(), clock_.now());
      for (std::size_t i = 0; i < nr; ++i) received(i);
    } else {
      for (std::size_t left = nr; left > 0;) {
        int index = MPI_UNDEFINED, done = 0;
        mpi_check(MPI_Testany(static_cast<int>(nr), recvs.data(), &index, &done, MPI_STATUS_IGNORE), "MPI_Testany");
        if (done && index != MPI_UNDEFINED) {
          raw.recv[static_cast<std::size_t>(index)] = clock_.now();
          received(static_cast<std::size_t>(index));
          --left;
        } else {
          check(left, "receive(s)");
        }
        poll_copies();
      }
    }
    for (unsigned k = 0; copies > 0; ++k) {
      poll_copies();
      if ((k & 0xFFF) == 0xFFF) check(copies, "receive copies to the device");
    }
  }

  const HaloConfig& c_;
  const HaloLayout& l_;
  HaloMemory m_;  // declared before the engines: a kernel still running on unwinding ends before it is freed
  std::unique_ptr<HaloEngine> halo_;
  std::unique_ptr<CopyEngine> copies_;  // staging through the copy engine only
  const MpiContext& mpi_;
  const HostClock& clock_;
  std::uint64_t long_bytes_;
};

double median_of(std::vector<double> v) { return v.empty() ? 0 : summarize(v).median; }

HaloRun convert(const HaloSetup& setup, const std::vector<RawIteration>& raws, const ClockFit& fit,
                const HostClock& clock) {
  HaloRun run;
  run.setup = setup;
  run.clock = fit;
  const auto& map = fit.mapping;
  const std::size_t ns = raws.empty() ? 0 : raws[0].pack.size(), nr = raws.empty() ? 0 : raws[0].unpack.size();
  std::vector<std::vector<double>> pack_dur(ns), unpack_dur(nr);
  for (const auto& r : raws) {
    HaloIteration it;
    it.round = r.round;
    const double t0 = clock.to_ns(r.t0);
    it.total_ns = clock.to_ns(r.t1 - r.t0);
    for (std::size_t i = 0; i < ns; ++i) {
      it.pack_start_ns.push_back(map.to_host_ns(r.pack[i].start) - t0);
      it.pack_end_ns.push_back(map.to_host_ns(r.pack[i].end) - t0);
      it.send_ns.push_back(clock.to_ns(r.send[i]) - t0);
      if (!r.copied.empty()) {
        it.copy_start_ns.push_back(clock.to_ns(r.copy_started[i]) - t0);
        it.copy_end_ns.push_back(clock.to_ns(r.copied[i]) - t0);
      }
      pack_dur[i].push_back(static_cast<double>(r.pack[i].end - r.pack[i].start) * map.ns_per_tick);
    }
    for (std::size_t i = 0; i < nr; ++i) {
      it.recv_ns.push_back(clock.to_ns(r.recv[i]) - t0);
      if (!r.recv_copied.empty()) it.recv_copy_end_ns.push_back(clock.to_ns(r.recv_copied[i]) - t0);
      it.unpack_start_ns.push_back(map.to_host_ns(r.unpack[i].start) - t0);
      it.unpack_end_ns.push_back(map.to_host_ns(r.unpack[i].end) - t0);
      unpack_dur[i].push_back(static_cast<double>(r.unpack[i].end - r.unpack[i].start) * map.ns_per_tick);
      run.mismatched_words += r.unpack[i].mismatched_words;
      run.timeouts += r.unpack[i].status != halo_status_ok;
    }
    run.iterations.push_back(std::move(it));
  }
  for (auto& d : pack_dur) run.pack_device_ns.push_back(median_of(d));
  for (auto& d : unpack_dur) run.unpack_device_ns.push_back(median_of(d));
  return run;
}

}  // namespace

std::vector<HaloRun> run_halo(const HaloConfig& c, const HaloLayout& layout, std::uint64_t stream, Device& device,
                              const MpiContext& mpi, const HostClock& clock) {
  for (const auto& s : layout.sends)
    if (s.bytes > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
      throw usage_error("halo message of " + std::to_string(s.bytes) + " bytes: MPI counts are int");
  // The ranks measure their links in turns: GPUs that copy at once share host
  // memory, and a bound is the link's own rate. On two H200s, two ranks
  // copying to their devices at once read 41.6 GB/s each where one alone
  // read 54.5, and the unpacks' 50 GB/s stood above that "bound". (An Error
  // here ends the job: probe_session's measure.)
  std::optional<HaloLink> link;
  for (int turn = 0; turn < mpi.size; ++turn) {
    if (turn == mpi.rank) link = measure_link(device, clock, c.timeout_s);
    interruptible_barrier(mpi);
  }
  Exchange exchange(c, layout, device, mpi, clock);
  auto pinger = device.make_signal_engine();  // the clock syncs around each visit
  const std::vector<HaloSetup> setups = c.setups();
  std::vector<std::vector<RawIteration>> raws(setups.size());
  std::vector<std::vector<ClockSample>> syncs(setups.size());
  std::vector<HaloShape> shapes(setups.size()), unpack_shapes(setups.size());
  std::uint64_t iteration = 0;
  for (int round = 0; round < c.rounds; ++round)
    for (std::size_t k : round_order(c.seed, stream, round, setups.size())) try {
        const HaloSetup& setup = setups[k];
        exchange.configure(setup);
        for (int w = 0; w < c.warmup; ++w) exchange.iterate(setup, ++iteration, shapes[k], unpack_shapes[k]);
        auto add_syncs = [&] {
          const auto batch = sync_batch(device, *pinger, clock, kSyncSamples, MemoryOrder::fence, c.timeout_s);
          syncs[k].insert(syncs[k].end(), batch.begin(), batch.end());
        };
        add_syncs();
        for (int i = 0; i < c.iterations; ++i) {
          raws[k].push_back(exchange.iterate(setup, ++iteration, shapes[k], unpack_shapes[k]));
          raws[k].back().round = round;
        }
        add_syncs();
      } catch (const Error& e) {  // which visit, so that a hang can be replayed (--seed)
        throw Error(e.kind(), std::string(e.what()) + " (setup " + setups[k].label() + ", round " +
                                  std::to_string(round + 1) + " of " + std::to_string(c.rounds) + ", iteration " +
                                  std::to_string(iteration) + ")");
      }
  std::vector<HaloRun> runs;
  for (std::size_t k = 0; k < setups.size(); ++k) {
    runs.push_back(convert(setups[k], raws[k], fit_clock(syncs[k], 0.5), clock));
    runs.back().launch = shapes[k];
    runs.back().unpack_launch = unpack_shapes[k];
    runs.back().link = link;
    runs.back().long_bytes = setups[k].long_messages_on_grid() ? exchange.long_bytes() : 0;
  }
  return runs;
}

std::vector<double> mpi_one_way_ns(const MpiContext& mpi, const HostClock& clock, int peer,
                                   const std::vector<std::uint64_t>& sizes, int reps) {
  std::vector<double> out;
  const std::uint64_t largest = sizes.empty() ? 0 : *std::max_element(sizes.begin(), sizes.end());
  std::vector<char> buf(std::max<std::uint64_t>(largest, 1));
  const bool leader = mpi.rank == 0, partner = mpi.rank == peer && peer != 0;
  for (std::uint64_t n : sizes) {
    std::vector<double> rtt;
    mpi_check(MPI_Barrier(mpi.comm), "MPI_Barrier");
    for (int r = -5; r < reps && (leader || partner) && peer != 0; ++r) {
      const std::uint64_t t0 = clock.now();
      if (leader) {
        mpi_check(MPI_Send(buf.data(), static_cast<int>(n), MPI_BYTE, peer, 99, mpi.comm), "MPI_Send");
        mpi_check(MPI_Recv(buf.data(), static_cast<int>(n), MPI_BYTE, peer, 99, mpi.comm, MPI_STATUS_IGNORE),
                  "MPI_Recv");
      } else {
        mpi_check(MPI_Recv(buf.data(), static_cast<int>(n), MPI_BYTE, 0, 99, mpi.comm, MPI_STATUS_IGNORE), "MPI_Recv");
        mpi_check(MPI_Send(buf.data(), static_cast<int>(n), MPI_BYTE, 0, 99, mpi.comm), "MPI_Send");
      }
      if (r >= 0) rtt.push_back(clock.to_ns(clock.now() - t0));
    }
    out.push_back(rtt.empty() ? 0 : median_of(rtt) / 2);
  }
  return out;
}

}  // namespace hetprobe
