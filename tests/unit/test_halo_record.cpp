// The halo records' rates, staging copies, critical path and Eq. 1 terms, from
// hand-made runs: every number below follows from the iterations written here.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "bench/core/results_report.hpp"
#include "bench/halo/halo_phases.hpp"
#include "bench/halo/halo_record.hpp"

namespace hetprobe {
namespace {

constexpr std::uint64_t kFace = 100000;

HaloMessage message(int tag, const char* kind, std::uint64_t bytes) {
  HaloMessage m;
  m.index = tag;
  m.kind = kind;
  m.bytes = bytes;
  m.send_to = m.recv_from = 1;
  return m;
}

// Sends: a vertex and a face; receives: a vertex and two faces.
HaloLayout layout() {
  HaloLayout l;
  l.source = "file hand-made";
  l.sends = {message(0, "vertex", 24), message(1, "face", kFace)};
  l.recvs = {message(0, "vertex", 24), message(1, "face", kFace), message(2, "face", kFace)};
  return l;
}

// Iteration k (1, 2, 3) of a memcpy run: every time scales with k, so the medians are iteration 2's.
HaloIteration iteration(double k, bool memcpy) {
  HaloIteration it;
  it.total_ns = 1000 * k;
  it.pack_start_ns = {10 * k, 5 * k};
  it.pack_end_ns = {20 * k, 50 * k};
  it.send_ns = {30 * k, 80 * k};
  it.recv_ns = {100 * k, 300 * k, 200 * k};  // the second face arrives first
  it.unpack_start_ns = {150 * k, 400 * k, 350 * k};
  it.unpack_end_ns = {160 * k, 500 * k, 410 * k};
  if (memcpy) {
    it.copy_start_ns = {22 * k, 55 * k};
    it.copy_end_ns = {25 * k, 70 * k};
    it.recv_copy_end_ns = {110 * k, 330 * k, 260 * k};
  }
  return it;
}

HaloRun run(HaloStaging staging, HaloVariant variant = HaloVariant::baseline) {
  HaloRun r;
  r.setup.variant = variant;
  r.setup.staging = staging;
  r.launch = {2, 128, PartSize::of(65536)};
  r.unpack_launch = {4, 128, PartSize::of(32768)};
  for (double k : {3.0, 1.0, 2.0}) r.iterations.push_back(iteration(k, staging == HaloStaging::memcpy));
  r.pack_device_ns = {8, 20000};       // the face: 100000 B in 20 us, 5 GB/s
  r.unpack_device_ns = {4, 40000, 0};  // 2.5 GB/s; the last: no time, no rate
  return r;
}

TEST(HaloPhases, CriticalPathOfOneIteration) {
  const Json p = to_json(critical_path(iteration(1, true), layout()));
  EXPECT_EQ(p["total"], 1000.0);
  EXPECT_EQ(p["pack_start"], 5.0);
  EXPECT_EQ(p["pack_end"], 50.0);
  EXPECT_EQ(p["last_send"], 80.0);
  EXPECT_EQ(p["largest_received"], 300.0);      // the first face arrived last
  EXPECT_EQ(p["largest_unpack_start"], 400.0);  // and its unpack started then
  EXPECT_EQ(p["unpack_end"], 500.0);
  EXPECT_EQ(p["largest_unpack"], (100.0 + 60.0) / 2);  // both faces
  EXPECT_EQ(p["last_recv_copy_end"], 330.0);
  EXPECT_TRUE(to_json(critical_path(iteration(1, false), layout()))["last_recv_copy_end"].is_null());
}

TEST(HaloPhases, PhasesWithoutMessagesAreNull) {
  HaloLayout sends_only = layout();
  sends_only.recvs.clear();
  HaloIteration it = iteration(1, false);
  it.recv_ns = it.unpack_start_ns = it.unpack_end_ns = {};
  const Json p = to_json(critical_path(it, sends_only));
  EXPECT_EQ(p["last_send"], 80.0);
  for (const char* phase : {"largest_received", "largest_unpack_start", "unpack_end", "largest_unpack"}) {
    EXPECT_TRUE(p[phase].is_null()) << phase;
  }
}

TEST(HaloPhases, CopyMediansPerMessage) {
  const HaloCopyMedians c = copy_medians(run(HaloStaging::memcpy));
  EXPECT_EQ(c.send_ns, (std::vector<double>{10, 40}));  // (25 - 20) x 2, (70 - 50) x 2
  EXPECT_EQ(c.recv_ns, (std::vector<double>{20, 60, 120}));
  EXPECT_TRUE(copy_medians(run(HaloStaging::pinned)).send_ns.empty());
}

TEST(HaloPhases, BusyTimeCountsOverlapsOnceAndGapsNot) {
  // Receives: the vertex (not long) and two faces, [400k, 500k) and [350k, 410k):
  // busy 150k, 300 ns in iteration 2 for 200000 B. Sends: one face, [5k, 50k).
  const HaloRun r = run(HaloStaging::pinned);
  const std::optional<HaloBusy> unpack = busy_time(r, layout().recvs, HaloSpan::unpack);
  ASSERT_TRUE(unpack);
  EXPECT_EQ(unpack->messages, 2u);
  EXPECT_EQ(unpack->bytes, 2 * kFace);
  EXPECT_EQ(unpack->busy_ns_median, 300.0);
  const Json pack = to_json(busy_time(r, layout().sends, HaloSpan::pack));
  EXPECT_EQ(pack["messages"], 1);
  EXPECT_EQ(pack["busy_ns_median"], 90.0);
  EXPECT_EQ(pack["min_bytes"], kHaloLongMessageBytes);
  EXPECT_DOUBLE_EQ(pack["gbs_median"].get<double>(), kFace / 90.0);
  // Apart, the faces' spans add and the time between them does not count.
  HaloRun apart = r;
  for (HaloIteration& it : apart.iterations) {  // the first face 1000 ns after the second, as long as before
    const double span = it.unpack_end_ns[1] - it.unpack_start_ns[1];
    it.unpack_start_ns[1] = it.unpack_end_ns[2] + 1000;
    it.unpack_end_ns[1] = it.unpack_start_ns[1] + span;
  }
  EXPECT_EQ(busy_time(apart, layout().recvs, HaloSpan::unpack)->busy_ns_median, 200.0 + 120.0);
  // No long message: null.
  EXPECT_FALSE(busy_time(r, layout().recvs, HaloSpan::unpack, 2 * kFace));
  EXPECT_TRUE(to_json(busy_time(r, layout().recvs, HaloSpan::unpack, 2 * kFace)).is_null());
}

TEST(HaloRecord, RatesCopiesAndLaunches) {
  HaloConfig config;
  const Json r = halo_record(run(HaloStaging::memcpy), layout(), config, {});
  EXPECT_EQ(r["parts"], "auto");
  EXPECT_EQ(r["launch"], Json::parse(R"({"blocks":2,"threads_per_block":128,"parts":65536})"));
  EXPECT_EQ(r["unpack_launch"], Json::parse(R"({"blocks":4,"threads_per_block":128,"parts":32768})"));
  EXPECT_EQ(r["pack"][1]["pack_gbs_median"], 5.0);
  EXPECT_EQ(r["pack"][1]["copy_ns_median"], 40.0);
  EXPECT_EQ(r["unpack"][1]["unpack_gbs_median"], 2.5);
  EXPECT_EQ(r["unpack"][1]["copy_ns_median"], 60.0);
  EXPECT_TRUE(r["unpack"][2]["unpack_gbs_median"].is_null());  // 0 ns
  // The medians over the iterations are iteration 2's phases; each kept iteration has its own.
  EXPECT_EQ(r["critical_path_ns"], to_json(critical_path(iteration(2, true), layout())));
  const Json& kept = r["timeline"]["iterations"];
  ASSERT_EQ(kept.size(), 3u);
  EXPECT_EQ(kept[0]["critical_path_ns"], to_json(critical_path(iteration(3, true), layout())));
  EXPECT_EQ(kept[1]["recv_copy_end_ns"], Json::parse("[110.0, 330.0, 260.0]"));

  const Json pinned = halo_record(run(HaloStaging::pinned), layout(), config, {});
  EXPECT_FALSE(pinned["pack"][1].contains("copy_ns_median"));
  EXPECT_EQ(pinned["timeline"]["iterations"][0]["recv_copy_end_ns"], Json::array());
  EXPECT_TRUE(pinned["critical_path_ns"]["last_recv_copy_end"].is_null());
}

// hetprobe halo measures the link once per run (the copy engine's rate); a
// pinned stage faster than it by more than kHaloLinkMargin is a timing error.
TEST(HaloRecord, AStageAboveTheLinkIsATimingError) {
  EXPECT_FALSE(above_bound(1100.0, 1000.0));
  EXPECT_TRUE(above_bound(1100.5, 1000.0));
  EXPECT_FALSE(above_bound(5.0, 0.0));  // no link measured: nothing to hold to
  HaloConfig config;
  HaloRun r = run(HaloStaging::pinned);
  EXPECT_TRUE(halo_record(r, layout(), config, {})["pack_busy"]["link_gbs"].is_null());  // no copy engine
  // Iteration 2: the face's pack busy 90 ns (1111 GB/s), the faces' unpack 300 ns (667 GB/s).
  r.link = HaloLink{1000.0, 1000.0};
  const Json rec = halo_record(r, layout(), config, {});
  EXPECT_EQ(rec["pack_busy"]["link_gbs"], 1000.0);
  EXPECT_EQ(rec["pack_busy"]["above_link"], true);
  EXPECT_EQ(rec["unpack_busy"]["above_link"], false);
  ASSERT_EQ(rec["warnings"].size(), 1u);
  EXPECT_NE(rec["warnings"][0].get<std::string>().find("pack_busy: the long messages moved 1111.1 GB/s, above the "
                                                       "link's 1000.0 GB/s"),
            std::string::npos);
  EXPECT_TRUE(rec["copy_busy"].is_null() && rec["recv_copy_busy"].is_null());  // no copies
}

// memcpy staging: the kernels move device memory and are held to it; the
// copies cross the link and are held to it.
TEST(HaloRecord, MemcpyStagesAreHeldToTheirOwnBounds) {
  HaloConfig config;
  HaloRun staged = run(HaloStaging::memcpy);
  EXPECT_TRUE(halo_record(staged, layout(), config, {})["copy_busy"]["link_gbs"].is_null());  // no copy engine
  staged.link = HaloLink{2000.0, 2000.0, 1000.0};
  const Json rec = halo_record(staged, layout(), config, {});
  // Iteration 2: the kernels as in the pinned run, 1111 and 667 GB/s, against device memory's 1000.
  EXPECT_TRUE(rec["pack_busy"]["link_gbs"].is_null() && rec["pack_busy"]["above_link"].is_null());
  EXPECT_EQ(rec["pack_busy"]["device_gbs"], 1000.0);
  EXPECT_EQ(rec["pack_busy"]["above_device"], true);
  EXPECT_EQ(rec["unpack_busy"]["above_device"], false);
  // The face's copy to the host [110, 140): 30 ns, 3333 GB/s over a link of 2000.
  EXPECT_EQ(rec["copy_busy"]["busy_ns_median"], 30.0);
  EXPECT_EQ(rec["copy_busy"]["link_gbs"], 2000.0);
  EXPECT_EQ(rec["copy_busy"]["above_link"], true);
  EXPECT_TRUE(rec["copy_busy"]["device_gbs"].is_null());
  // The faces' copies to the device from their receives, [600, 660) and [400, 520): 180 ns, 1111 GB/s.
  EXPECT_EQ(rec["recv_copy_busy"]["busy_ns_median"], 180.0);
  EXPECT_EQ(rec["recv_copy_busy"]["above_link"], false);
  ASSERT_EQ(rec["warnings"].size(), 2u);
  EXPECT_NE(rec["warnings"][0].get<std::string>().find("pack_busy: the long messages moved 1111.1 GB/s, above the "
                                                       "device memory's 1000.0 GB/s"),
            std::string::npos);
  EXPECT_NE(rec["warnings"][1].get<std::string>().find("copy_busy: the long messages moved 3333.3 GB/s, above the "
                                                       "link's 2000.0 GB/s"),
            std::string::npos);
  EXPECT_EQ(rec["timeline"]["iterations"][1]["copy_start_ns"], Json::parse("[22.0, 55.0]"));
}

TEST(HaloRecord, PartsAsAskedAndNoUnpackLaunchWhenStacked) {
  HaloConfig config;
  HaloRun whole = run(HaloStaging::pinned);
  whole.setup.parts = PartSize::whole();
  whole.launch.parts = PartSize::whole();
  const Json w = halo_record(whole, layout(), config, {});
  EXPECT_EQ(w["parts"], "whole");
  EXPECT_EQ(w["launch"]["parts"], "whole");  // one block per message: no 0 standing for it
  EXPECT_EQ(w["setup"], "baseline isend waitall pinned 128t whole");
  HaloRun sized = run(HaloStaging::pinned);
  sized.setup.parts = PartSize::of(32768);
  const Json s = halo_record(sized, layout(), config, {});
  EXPECT_EQ(s["parts"], 32768);
  EXPECT_EQ(s["setup"], "baseline isend waitall pinned 128t part 32KiB");  // the text form
  EXPECT_EQ(s["send_mode"], "isend");                                      // interference's field name
  EXPECT_FALSE(s.contains("send"));
  const Json stacked = halo_record(run(HaloStaging::pinned, HaloVariant::notify_stacked), layout(), config, {});
  EXPECT_TRUE(stacked["unpack_launch"].is_null());
}

TEST(HaloRecord, Eq1TermsIncludeTheLargestReceivesCopyWithMemcpy) {
  HaloModelSetup model;
  model.postal = {1e-6, 1e-10};  // T_comm(100000 B) = 11 us
  const Json m = halo_model_record(model, layout(), {run(HaloStaging::pinned), run(HaloStaging::memcpy)});
  auto s = [](const Json& v) { return v.get<double>(); };
  const Json& pinned = m["terms"]["baseline isend waitall pinned 128t"];
  EXPECT_NEAR(s(pinned["pack_smallest_s"]), 8e-9, 1e-18);    // the vertex's pack
  EXPECT_NEAR(s(pinned["unpack_largest_s"]), 40e-6, 1e-15);  // the first face's unpack
  EXPECT_EQ(s(pinned["copy_largest_s"]), 0.0);
  EXPECT_NEAR(s(pinned["total_s"]), 8e-9 + 11e-6 + 40e-6, 1e-15);
  const Json& memcpy = m["terms"]["baseline isend waitall memcpy 128t"];
  EXPECT_NEAR(s(memcpy["copy_largest_s"]), 60e-9, 1e-18);  // the first face's copy to the device
  EXPECT_NEAR(s(memcpy["total_s"]), 8e-9 + 11e-6 + 60e-9 + 40e-6, 1e-15);
  EXPECT_NEAR(m["lower_bound_ns"]["baseline isend waitall memcpy 128t"].get<double>() -
                  m["lower_bound_ns"]["baseline isend waitall pinned 128t"].get<double>(),
              60, 1e-6);
}

// What `hetprobe halo` prints for these records.
std::string table_of(const std::vector<Json>& records) {
  char* buf = nullptr;
  std::size_t size = 0;
  std::FILE* out = ::open_memstream(&buf, &size);
  print_report(out, TableFormat::table,
               halo_report(records_of_this_run({{"record", "header"}, {"probe", "halo"}}, records)));
  std::fclose(out);
  std::string text(buf, size);
  std::free(buf);
  return text;
}

std::string line_with(const std::string& text, const std::string& what) {
  const std::size_t at = text.find(what);
  if (at == std::string::npos) return "";
  const std::size_t start = text.rfind('\n', at) + 1;
  return text.substr(start, text.find('\n', at) - start);
}

TEST(HaloTable, PartsAndTheFastestBaselineOfTheLayout) {
  HaloConfig config;
  // Median iteration: 2 us x scale.
  auto record = [&](HaloVariant variant, int threads, PartSize parts, double scale) {
    HaloRun r = run(HaloStaging::pinned, variant);
    r.setup.threads_per_block = threads;
    r.setup.parts = parts;
    for (HaloIteration& it : r.iterations) it.total_ns *= scale;
    return halo_record(r, layout(), config, {});
  };
  const std::string text = table_of({record(HaloVariant::baseline, 128, PartSize::whole(), 50),
                                     record(HaloVariant::baseline, 1024, PartSize::automatic(), 25),
                                     record(HaloVariant::notify_stream, 128, PartSize::of(32768), 40)});
  // notify-stream (80 us): vs_base against the 128-thread baseline (100 us),
  // vs_best against the 1024-thread one (50 us).
  const std::string notify = line_with(text, "notify-stream");
  EXPECT_NE(notify.find(" 32KiB "), std::string::npos) << text;
  EXPECT_NE(notify.find(" 1.250 "), std::string::npos) << text;
  EXPECT_NE(notify.find(" 0.625 "), std::string::npos) << text;
  const std::string whole = line_with(text, " whole ");
  EXPECT_NE(whole.find(" 100.0 "), std::string::npos) << text;
  EXPECT_NE(whole.find(" 1.000    0.500 "), std::string::npos) << text;
  EXPECT_NE(line_with(text, " auto ").find(" 1.000    1.000 "), std::string::npos) << text;
}

}  // namespace
}  // namespace hetprobe
