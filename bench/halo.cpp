#include "hetprobe/halo.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "hetprobe/clock_sync.hpp"
#include "hetprobe/errors.hpp"
#include "hetprobe/host_signal_ops.hpp"
#include "hetprobe/stats.hpp"

namespace hetprobe {

const char* to_string(HaloVariant v) { return v == HaloVariant::baseline ? "baseline" : "notify-stream"; }

std::vector<HaloVariant> parse_halo_variants(const std::string& list) {
  if (list == "all") return {HaloVariant::baseline, HaloVariant::notify_stream};
  std::vector<HaloVariant> out;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = std::min(list.find(',', start), list.size());
    const std::string name = list.substr(start, end - start);
    HaloVariant v;
    if (name == "baseline") v = HaloVariant::baseline;
    else if (name == "notify-stream") v = HaloVariant::notify_stream;
    else throw usage_error("halo variant '" + name + "': expected baseline, notify-stream or all");
    if (std::find(out.begin(), out.end(), v) != out.end()) throw usage_error("halo variant " + name + " listed twice");
    out.push_back(v);
    start = end + 1;
  }
  return out;
}

Json HaloConfig::to_json() const {
  Json v = Json::array();
  for (auto x : variants) v.push_back(to_string(x));
  return {{"variants", v}, {"send", blocking_send ? "send" : "isend"},
          {"receive_wait", testany ? "testany" : "waitall"}, {"iterations", iterations}, {"warmup", warmup},
          {"threads_per_block", threads_per_block}, {"timeout_s", timeout_s}};
}

namespace {

constexpr int kSyncSamples = 16;
constexpr std::size_t kPage = 4096;

std::size_t round_up(std::size_t n, std::size_t to) { return (n + to - 1) / to * to; }

// Every buffer, flag and stamp of one rank's exchange, allocated once.
struct HaloMemory {
  PinnedBuffer send, recv, halo, control;
  std::vector<std::size_t> send_at, recv_at;  // offsets into send / recv
  HaloMessageArgs *pack_args = nullptr, *unpack_args = nullptr;
  FlagLine *send_ready = nullptr, *unpack_ready = nullptr;
  HaloStamp *pack_stamps = nullptr, *unpack_stamps = nullptr;

  template <class T>
  T* dev(T* host_ptr) const { return reinterpret_cast<T*>(control.device_at(reinterpret_cast<std::byte*>(host_ptr))); }
};

HaloMemory allocate(Device& device, const HaloLayout& layout) {
  HaloMemory m;
  std::size_t send_total = 0, recv_total = 0;
  for (const auto& s : layout.sends) m.send_at.push_back(std::exchange(send_total, send_total + round_up(s.bytes, kPage)));
  for (const auto& r : layout.recvs) m.recv_at.push_back(std::exchange(recv_total, recv_total + round_up(r.bytes, kPage)));
  m.send = device.alloc_pinned(std::max<std::size_t>(send_total, kPage));
  m.recv = device.alloc_pinned(std::max<std::size_t>(recv_total, kPage));
  m.halo = device.alloc_device(std::max<std::size_t>(recv_total, kPage));
  const std::size_t ns = layout.sends.size(), nr = layout.recvs.size();
  const std::size_t args_bytes = round_up((ns + nr) * sizeof(HaloMessageArgs), 128);
  m.control = device.alloc_pinned(args_bytes + (ns + nr) * (sizeof(FlagLine) + sizeof(HaloStamp)));
  std::memset(m.control.host(), 0, m.control.size());
  std::byte* p = m.control.host();
  m.pack_args = reinterpret_cast<HaloMessageArgs*>(p);
  m.unpack_args = m.pack_args + ns;
  m.send_ready = reinterpret_cast<FlagLine*>(p + args_bytes);
  m.unpack_ready = m.send_ready + ns;
  m.pack_stamps = reinterpret_cast<HaloStamp*>(m.unpack_ready + nr);
  m.unpack_stamps = m.pack_stamps + ns;
  for (std::size_t i = 0; i < ns; ++i)
    m.pack_args[i] = {reinterpret_cast<unsigned char*>(m.send.device() + m.send_at[i]), nullptr, layout.sends[i].bytes,
                      static_cast<std::uint64_t>(layout.rank), static_cast<std::uint64_t>(layout.sends[i].index)};
  for (std::size_t i = 0; i < nr; ++i)
    m.unpack_args[i] = {reinterpret_cast<unsigned char*>(m.recv.device() + m.recv_at[i]),
                        reinterpret_cast<unsigned char*>(m.halo.device() + m.recv_at[i]), layout.recvs[i].bytes,
                        static_cast<std::uint64_t>(layout.recvs[i].recv_from),
                        static_cast<std::uint64_t>(layout.recvs[i].index)};
  return m;
}

HaloLaunch stage(const HaloMemory& m, HaloStage which, std::uint64_t count, bool flags, std::uint64_t iteration,
                 const HaloConfig& c) {
  const bool pack = which == HaloStage::pack;
  HaloLaunch l;
  l.stage = which;
  l.args = {m.dev(pack ? m.pack_args : m.unpack_args), count,
            flags ? m.dev(pack ? m.send_ready : m.unpack_ready) : nullptr,
            m.dev(pack ? m.pack_stamps : m.unpack_stamps), iteration, 0};
  l.timeout_s = c.timeout_s;
  l.threads_per_block = c.threads_per_block;
  return l;
}

// Raw host ticks and device stamps of one iteration, converted after the fit.
struct RawIteration {
  std::uint64_t t0 = 0, t1 = 0;
  std::vector<std::uint64_t> send, recv;
  std::vector<HaloStamp> pack, unpack;
};

class Exchange {
 public:
  Exchange(const HaloConfig& c, const HaloLayout& l, Device& d, const MpiContext& mpi, const HostClock& clock)
      : c_(c), l_(l), d_(d), mpi_(mpi), clock_(clock), m_(allocate(d, l)) {}

  RawIteration iterate(HaloVariant variant, std::uint64_t iteration) {
    const std::size_t ns = l_.sends.size(), nr = l_.recvs.size();
    RawIteration raw;
    raw.send.assign(ns, 0);
    raw.recv.assign(nr, 0);
    std::vector<MPI_Request> recvs(nr, MPI_REQUEST_NULL), sends(ns, MPI_REQUEST_NULL);
    mpi_check(MPI_Barrier(mpi_.comm), "MPI_Barrier");
    raw.t0 = clock_.now();
    for (std::size_t i = 0; i < nr; ++i)
      mpi_check(MPI_Irecv(m_.recv.host() + m_.recv_at[i], static_cast<int>(l_.recvs[i].bytes), MPI_BYTE,
                          l_.recvs[i].recv_from, l_.recvs[i].index, mpi_.comm, &recvs[i]), "MPI_Irecv");
    auto send = [&](std::size_t i) {
      void* buf = m_.send.host() + m_.send_at[i];
      const auto& s = l_.sends[i];
      if (c_.blocking_send)
        mpi_check(MPI_Send(buf, static_cast<int>(s.bytes), MPI_BYTE, s.send_to, s.index, mpi_.comm), "MPI_Send");
      else
        mpi_check(MPI_Isend(buf, static_cast<int>(s.bytes), MPI_BYTE, s.send_to, s.index, mpi_.comm, &sends[i]),
                  "MPI_Isend");
      raw.send[i] = clock_.now();
    };
    if (variant == HaloVariant::baseline) {
      d_.start_halo(stage(m_, HaloStage::pack, ns, false, iteration, c_));
      d_.join_halo(HaloStage::pack);
      for (std::size_t i = 0; i < ns; ++i) send(i);
      complete_receives(recvs, raw, nullptr, iteration);
      d_.start_halo(stage(m_, HaloStage::unpack, nr, false, iteration, c_));
      d_.join_halo(HaloStage::unpack);
    } else {
      d_.start_halo(stage(m_, HaloStage::unpack, nr, true, iteration, c_));
      d_.start_halo(stage(m_, HaloStage::pack, ns, true, iteration, c_));
      send_when_packed(send, iteration);  // phase A
      complete_receives(recvs, raw, m_.unpack_ready, iteration);  // phase B
      d_.join_halo(HaloStage::pack);
      d_.join_halo(HaloStage::unpack);
    }
    if (!c_.blocking_send) mpi_check(MPI_Waitall(static_cast<int>(ns), sends.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
    raw.t1 = clock_.now();
    raw.pack.assign(m_.pack_stamps, m_.pack_stamps + ns);
    raw.unpack.assign(m_.unpack_stamps, m_.unpack_stamps + nr);
    return raw;
  }

 private:
  // Host-clock ticks at which a wait of this iteration gives up.
  std::uint64_t deadline() const {
    return clock_.now() + static_cast<std::uint64_t>(c_.timeout_s * 1e9 * clock_.ticks_per_ns());
  }

  // Phase A: every message goes out as soon as its send-ready flag says it is packed.
  template <class Send>
  void send_when_packed(Send& send, std::uint64_t iteration) {
    HostSignalOps host;
    std::vector<bool> sent(l_.sends.size(), false);
    std::size_t left = sent.size();
    const std::uint64_t give_up = deadline();
    for (unsigned k = 0; left > 0; ++k) {
      for (std::size_t i = 0; i < sent.size(); ++i)
        if (!sent[i] && host.load_acquire(&m_.send_ready[i].value) >= iteration) {
          send(i);
          sent[i] = true;
          --left;
        }
      if ((k & 0xFFF) == 0xFFF && clock_.now() > give_up)
        throw Error(ErrorKind::timeout, std::to_string(left) + " halo message(s) were never packed within " +
                                            std::to_string(c_.timeout_s) + " s");
    }
  }

  // Waitall (baseline) or a Testany loop; with flags, each completed receive
  // raises its unpack-ready flag at once (phase B).
  void complete_receives(std::vector<MPI_Request>& recvs, RawIteration& raw, FlagLine* flags, std::uint64_t iteration) {
    if (flags == nullptr && !c_.testany) {
      mpi_check(MPI_Waitall(static_cast<int>(recvs.size()), recvs.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
      std::fill(raw.recv.begin(), raw.recv.end(), clock_.now());
      return;
    }
    HostSignalOps host;
    const std::uint64_t give_up = deadline();
    for (std::size_t left = recvs.size(); left > 0;) {
      int index = MPI_UNDEFINED, done = 0;
      mpi_check(MPI_Testany(static_cast<int>(recvs.size()), recvs.data(), &index, &done, MPI_STATUS_IGNORE),
                "MPI_Testany");
      if (done && index != MPI_UNDEFINED) {
        raw.recv[index] = clock_.now();
        if (flags != nullptr) host.store_release(&flags[index].value, iteration);
        --left;
      } else if (clock_.now() > give_up) {
        throw Error(ErrorKind::timeout, std::to_string(left) + " halo receive(s) did not complete within " +
                                            std::to_string(c_.timeout_s) + " s");
      }
    }
  }

  const HaloConfig& c_;
  const HaloLayout& l_;
  Device& d_;
  const MpiContext& mpi_;
  const HostClock& clock_;
  HaloMemory m_;
};

double median_of(std::vector<double> v) { return v.empty() ? 0 : summarize(v).median; }

HaloRun convert(HaloVariant variant, const std::vector<RawIteration>& raws, const ClockFit& fit,
                const HostClock& clock) {
  HaloRun run;
  run.variant = variant;
  run.clock = fit;
  const auto& map = fit.mapping;
  const std::size_t ns = raws.empty() ? 0 : raws[0].pack.size(), nr = raws.empty() ? 0 : raws[0].unpack.size();
  std::vector<std::vector<double>> pack_dur(ns), unpack_dur(nr);
  for (const auto& r : raws) {
    HaloIteration it;
    const double t0 = clock.to_ns(r.t0);
    it.total_ns = clock.to_ns(r.t1 - r.t0);
    for (std::size_t i = 0; i < ns; ++i) {
      it.pack_start_ns.push_back(map.to_host_ns(r.pack[i].start) - t0);
      it.pack_end_ns.push_back(map.to_host_ns(r.pack[i].end) - t0);
      it.send_ns.push_back(clock.to_ns(r.send[i]) - t0);
      pack_dur[i].push_back(static_cast<double>(r.pack[i].end - r.pack[i].start) * map.ns_per_tick);
    }
    for (std::size_t i = 0; i < nr; ++i) {
      it.recv_ns.push_back(clock.to_ns(r.recv[i]) - t0);
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

std::vector<HaloRun> run_halo(const HaloConfig& c, const HaloLayout& layout, Device& device, const MpiContext& mpi,
                              const HostClock& clock) {
  for (const auto& s : layout.sends)
    if (s.bytes > static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
      throw usage_error("halo message of " + std::to_string(s.bytes) + " bytes: MPI counts are int");
  Exchange exchange(c, layout, device, mpi, clock);
  std::vector<HaloRun> runs;
  std::uint64_t iteration = 0;
  for (HaloVariant v : c.variants) {
    for (int w = 0; w < c.warmup; ++w) exchange.iterate(v, ++iteration);
    auto syncs = sync_batch(device, clock, kSyncSamples, MemoryOrder::fence, c.timeout_s);
    std::vector<RawIteration> raws;
    for (int i = 0; i < c.iterations; ++i) raws.push_back(exchange.iterate(v, ++iteration));
    const auto after = sync_batch(device, clock, kSyncSamples, MemoryOrder::fence, c.timeout_s);
    syncs.insert(syncs.end(), after.begin(), after.end());
    runs.push_back(convert(v, raws, fit_clock(syncs, 0.5), clock));
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
        mpi_check(MPI_Recv(buf.data(), static_cast<int>(n), MPI_BYTE, peer, 99, mpi.comm, MPI_STATUS_IGNORE), "MPI_Recv");
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
