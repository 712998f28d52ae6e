// Records of schema_version 1 read in the current form (bench/core/record_upgrade.hpp).
#include "bench/core/record_upgrade.hpp"

#include <gtest/gtest.h>

#include "bench/bandwidth/bandwidth.hpp"
#include "bench/core/run_header.hpp"

namespace hetprobe {
namespace {

const std::string kData = HETPROBE_TEST_DATA_DIR "/../../notebooks/data/";

Json header(int version) { return {{"record", "header"}, {"probe", "halo"}, {"schema_version", version}}; }

Json halo(const Json& launch, const Json& unpack_launch) {
  return {{"record", "halo"}, {"probe", "halo"}, {"launch", launch}, {"unpack_launch", unpack_launch}};
}

// Version 1 wrote a launch's part size as part_bytes, 0 standing for one
// block per message; version 2 writes the part size itself.
TEST(RecordUpgrade, HaloLaunchPartBytesBecomeAPartSize) {
  std::vector<Json> records{header(1),
                            halo(Json::parse(R"({"blocks":26,"threads_per_block":128,"part_bytes":0})"),
                                 Json::parse(R"({"blocks":40,"threads_per_block":128,"part_bytes":32768})")),
                            halo(Json::parse(R"({"blocks":26,"threads_per_block":128})"), nullptr)};
  upgrade_records(records);
  EXPECT_EQ(records[1]["launch"], Json::parse(R"({"blocks":26,"threads_per_block":128,"parts":"whole"})"));
  EXPECT_EQ(records[1]["unpack_launch"], Json::parse(R"({"blocks":40,"threads_per_block":128,"parts":32768})"));
  // From before parts: nothing to upgrade.
  EXPECT_EQ(records[2]["launch"], Json::parse(R"({"blocks":26,"threads_per_block":128})"));
  EXPECT_TRUE(records[2]["unpack_launch"].is_null());
  EXPECT_EQ(records[0], header(1)) << "a header says what the file was written as";
  // Upgrading twice is upgrading once.
  const std::vector<Json> once = records;
  upgrade_records(records);
  EXPECT_EQ(records, once);
}

// Version 1 named halo's send mode `send`, in its records and its config;
// version 2 names it send_mode, as interference does.
TEST(RecordUpgrade, HaloSendBecomesSendMode) {
  Json h = header(1);
  h["config"] = {{"variants", {"baseline"}}, {"send", {"isend", "send"}}};
  std::vector<Json> records{h, {{"record", "halo"}, {"probe", "halo"}, {"send", "send"}}};
  upgrade_records(records);
  EXPECT_EQ(records[0]["config"], Json::parse(R"({"variants":["baseline"],"send_mode":["isend","send"]})"));
  EXPECT_EQ(records[1], Json::parse(R"({"record":"halo","probe":"halo","send_mode":"send"})"));
  EXPECT_EQ(records[0]["schema_version"], 1);
}

// Version 1 keyed a bandwidth row by its display name alone: the upgrade
// reads back the keys of every row the probe writes, from the name it gives it.
TEST(RecordUpgrade, BandwidthRowsGetTheirKeysFromTheirNames) {
  std::vector<BandwidthRow> rows;
  for (LoadKind k : {LoadKind::write, LoadKind::read, LoadKind::copy_d2h, LoadKind::copy_h2d})
    rows.push_back({BandwidthPass::plain, k, std::nullopt});
  for (Access a : {Access::stream, Access::stacked}) rows.push_back({BandwidthPass::persistent, LoadKind::write, a});
  for (LoadKind k : {LoadKind::write, LoadKind::read, LoadKind::poll})
    for (Access a : {Access::stream, Access::stacked}) rows.push_back({BandwidthPass::load, k, a});
  for (LoadKind k : {LoadKind::copy_d2h, LoadKind::copy_h2d}) rows.push_back({BandwidthPass::load, k, std::nullopt});
  for (const BandwidthRow& row : rows) {
    std::vector<Json> records{header(1),
                              {{"record", "point"}, {"probe", "bandwidth"}, {"writer", bandwidth_row_name(row)}}};
    upgrade_records(records);
    const Json& r = records[1];
    EXPECT_EQ(r["pass"], to_string(row.pass)) << r;
    EXPECT_EQ(r["kind"], to_string(row.kind)) << r;
    EXPECT_EQ(r["access"], row.access ? Json(to_string(*row.access)) : Json(nullptr)) << r;
  }
  EXPECT_EQ(bandwidth_row_name(rows[0]), "plain one-pass kernel");
  EXPECT_EQ(bandwidth_row_name(rows[4]), "stream (persistent)");
  EXPECT_EQ(bandwidth_row_name(rows.back()), "load copy-h2d");
  // A name of no known form gets no keys.
  std::vector<Json> odd{header(1), {{"record", "point"}, {"probe", "bandwidth"}, {"writer", "something else"}}};
  upgrade_records(odd);
  EXPECT_FALSE(odd[1].contains("pass"));
}

TEST(RecordUpgrade, RecordsOfTheCurrentVersionStayAsWritten) {
  const Json launch = Json::parse(R"({"blocks":26,"threads_per_block":128,"part_bytes":0})");
  Json record = halo(launch, nullptr);
  record["send"] = "isend";
  std::vector<Json> records{header(kSchemaVersion), record};
  upgrade_records(records);
  EXPECT_EQ(records[1], record);
}

// Version 2 did not say how MPI carried an interference point's message:
// version 3's mpi_path is null there, and one that is written stays.
TEST(RecordUpgrade, InterferencePointsOfVersion2GetANullMpiPath) {
  const Json point{{"record", "point"}, {"probe", "interference"}, {"size_bytes", 1024}};
  Json written = point;
  written["mpi_path"] = {{"carrier", "tcp"}};
  std::vector<Json> records{{{"record", "header"}, {"probe", "interference"}, {"schema_version", 2}},
                            point,
                            {{"record", "host_memory"}, {"probe", "interference"}},
                            {{"record", "header"}, {"probe", "interference"}, {"schema_version", 3}},
                            point,
                            written};
  upgrade_records(records);
  ASSERT_TRUE(records[1].contains("mpi_path"));
  EXPECT_TRUE(records[1]["mpi_path"].is_null());
  EXPECT_FALSE(records[2].contains("mpi_path")) << "only points carry it";
  EXPECT_FALSE(records[4].contains("mpi_path")) << "a version-3 record is left as written";
  EXPECT_EQ(records[5], written);
}

// Version 1 files from before the load kinds ran the paper's writer, which
// said what it moved only as writer.sender.bandwidth_during_send_gbs: their
// points gain the load's key and object as --paper writes them, and their
// headers config.paper.
TEST(RecordUpgrade, PointsFromBeforeTheLoadKindsGainThePapersLoad) {
  const Json writer{{"sender", {{"bandwidth_during_send_gbs", 12.5}}}, {"receiver", nullptr}};
  const Json loaded{{"record", "point"}, {"probe", "interference"}, {"layout", "PSB"}, {"writer", writer}};
  const Json ssb{{"record", "point"}, {"probe", "interference"}, {"layout", "SSB"}};
  Json kinds = loaded;
  kinds["load_kind"] = "read";
  std::vector<Json> records{{{"record", "header"},
                             {"probe", "interference"},
                             {"schema_version", 1},
                             {"config", Json::object()}},
                            loaded,
                            ssb,
                            kinds};
  upgrade_records(records);
  EXPECT_EQ(records[0]["config"]["paper"], true);
  EXPECT_EQ(records[1]["load_kind"], "write");
  EXPECT_EQ(records[1]["load_gpus"], 1);
  EXPECT_EQ(records[1]["load_rate"], "1");
  EXPECT_EQ(records[1]["load"]["traffic_during_send_gbs"], 12.5);
  EXPECT_EQ(records[1]["load"]["engine"], "paper writer");
  EXPECT_EQ(records[2]["load_kind"], "none");
  EXPECT_EQ(records[2]["load_gpus"], 0);
  EXPECT_TRUE(records[2]["load_rate"].is_null());
  EXPECT_TRUE(records[2]["load"]["traffic_during_send_gbs"].is_null()) << "no writer: nothing said";
  Json expected = kinds;
  expected["mpi_path"] = nullptr;  // version 2's step
  EXPECT_EQ(records[3], expected) << "a point with its load kind keeps it";
}

// Version 3 wrote the load buffers as bytes or the text "message size", and
// again as secondary_bytes; version 4 types them (version 1's paper headers
// had secondary_bytes alone).
TEST(RecordUpgrade, InterferenceLoadBytesOfVersion3AreTyped) {
  const auto config_of = [](const Json& config, int version) {
    std::vector<Json> records{{{"record", "header"}, {"probe", "interference"}, {"schema_version", version}}};
    records[0]["config"] = config;
    upgrade_records(records);
    return records[0]["config"];
  };
  const Json per_message = config_of({{"load_bytes", "message size"}, {"secondary_bytes", "message size"}}, 3);
  EXPECT_EQ(per_message, (Json{{"load_bytes", nullptr}, {"load_bytes_per_message", true}}));
  const Json fixed = config_of({{"load_bytes", 268435456}, {"secondary_bytes", 268435456}}, 3);
  EXPECT_EQ(fixed, (Json{{"load_bytes", 268435456}, {"load_bytes_per_message", false}}));
  const Json paper{{"paper", true}, {"load_bytes", nullptr}, {"load_bytes_per_message", true}};  // before config.paper
  EXPECT_EQ(config_of({{"secondary_bytes", "message size"}}, 1), paper);
  const Json current{{"load_bytes", nullptr}, {"load_bytes_per_message", true}};
  EXPECT_EQ(config_of(current, kSchemaVersion), current);
  EXPECT_EQ(config_of({{"load_bytes", 4096}}, 4), (Json{{"load_bytes", 4096}})) << "version 4 is left as written";
}

// A committed version-1 file with parts auto, whole and sizes comes back typed.
TEST(RecordUpgrade, ReadingACommittedVersion1File) {
  const ResultsFile file = read_results(kData + "h200-halo-parts/self-400.jsonl.gz");
  ASSERT_EQ(file.records.front()["schema_version"], 1);
  int whole = 0, sized = 0;
  for (const Json& r : file.records) {
    if (r["record"] != "halo") continue;
    for (const char* key : {"launch", "unpack_launch"}) {
      const Json& l = r[key];
      if (l.is_null()) continue;
      EXPECT_FALSE(l.contains("part_bytes")) << r["setup"];
      const Json& parts = l["parts"];
      EXPECT_TRUE(parts == "whole" || (parts.is_number_unsigned() && parts.get<std::uint64_t>() > 0)) << r["setup"];
      if (r["parts"] == "whole") {
        EXPECT_EQ(parts, "whole") << r["setup"];
      }
      whole += parts == "whole";
      sized += parts.is_number();
    }
  }
  EXPECT_GT(whole, 0);
  EXPECT_GT(sized, 0);
}

}  // namespace
}  // namespace hetprobe
