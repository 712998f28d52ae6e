// The table printers (golden output for each format) and the reports of each
// probe's records: committed data shows, malformed records are named.
#include "bench/core/table.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "bench/cli/probe_table.hpp"
#include "bench/core/results_report.hpp"
#include "tests/unit/expect_usage_error.hpp"

namespace hetprobe {
namespace {

using Align = Column::Align;
using Shown = Column::Shown;

std::string printed(TableFormat format, const Report& report) {
  char* buf = nullptr;
  std::size_t size = 0;
  std::FILE* out = ::open_memstream(&buf, &size);
  print_report(out, format, report);
  std::fclose(out);
  std::string text(buf, size);
  std::free(buf);
  return text;
}

Report sample() {
  Table t{"speeds", {"Speeds"}, {}};
  t.columns = {{"name", 6, Align::left},
               {"size", 6, Align::right, -1, Shown::text},
               {"size_bytes", 0, Align::right, -1, Shown::data},
               {"median_us", 9, Align::right, 2},
               {"note", 0, Align::left, -1, Shown::everywhere, 2}};
  t.rows = {{"a", "1 KiB", 1024, 1.23456, "ok"}, {"b,\"c\"", "2 KiB", 2048, nullptr, "x|y"}};
  t.notes = {"median_us: per send"};
  return Report{{"hetprobe test: a run"}, {t}};
}

TEST(TablePrinters, TextPadsRightAlignsAndShowsNullAsDash) {
  EXPECT_EQ(printed(TableFormat::table, sample()),
            "# hetprobe test: a run\n"
            "\n"
            "## Speeds\n"
            "name     size median_us  note\n"
            "a       1 KiB      1.23  ok\n"
            "b,\"c\"   2 KiB         -  x|y\n"
            "# median_us: per send\n");
}

TEST(TablePrinters, CsvIsRfc4180WithDataColumnsAndRecordedNumbers) {
  EXPECT_EQ(printed(TableFormat::csv, sample()),
            "name,size_bytes,median_us,note\r\n"
            "a,1024,1.23456,ok\r\n"
            "\"b,\"\"c\"\"\",2048,,x|y\r\n");
}

TEST(TablePrinters, JsonIsOneDocumentKeyedByTable) {
  const Json doc = Json::parse(printed(TableFormat::json, sample()));
  ASSERT_TRUE(doc.contains("speeds"));
  ASSERT_EQ(doc["speeds"].size(), 2u);
  EXPECT_EQ(doc["speeds"][0]["size_bytes"], 1024);
  EXPECT_EQ(doc["speeds"][0]["median_us"], 1.23456);
  EXPECT_TRUE(doc["speeds"][1]["median_us"].is_null());
  EXPECT_FALSE(doc["speeds"][0].contains("size"));  // a text-only column
}

TEST(TablePrinters, MarkdownIsAPipeTable) {
  EXPECT_EQ(printed(TableFormat::markdown, sample()),
            "hetprobe test: a run  \n"
            "\n"
            "### Speeds\n"
            "\n"
            "| name | size | median_us | note |\n"
            "| --- | ---: | ---: | --- |\n"
            "| a | 1 KiB | 1.23 | ok |\n"
            "| b,\"c\" | 2 KiB | - | x\\|y |\n"
            "\n"
            "median_us: per send  \n");
}

TEST(TablePrinters, AVerticalTableListsEachRowsFields) {
  Table t{"fit", {}, {{"rank", 0}, {"drift_ppm", 0, Align::right, 3}}, {{0, -5.7784}}, {}, true};
  const Report r{{}, {t}};
  EXPECT_EQ(printed(TableFormat::table, r), "rank      0\ndrift_ppm -5.778\n");
  EXPECT_EQ(printed(TableFormat::markdown, r),
            "\n| field | value |\n| --- | ---: |\n| rank | 0 |\n| drift_ppm | -5.778 |\n");
  EXPECT_EQ(printed(TableFormat::csv, r), "rank,drift_ppm\r\n0,-5.7784\r\n");  // machine formats: a row as ever
}

TEST(TablePrinters, CsvNeverPassesSeveralTablesOffAsOne) {
  Report r = sample();
  r.tables.push_back(r.tables.front());
  r.tables.back().key = "again";
  char* buf = nullptr;
  std::size_t size = 0;
  std::FILE* out = ::open_memstream(&buf, &size);
  expect_usage_error([&] { print_report(out, TableFormat::csv, r); }, "CSV holds one table");
  std::fclose(out);
  EXPECT_EQ(size, 0u) << "nothing is printed before the refusal";
  std::free(buf);
}

TEST(TablePrinters, UnknownFormatNamesTheFormats) {
  expect_usage_error([] { kTableFormatNames.parse("xml"); },
                     "unknown table format 'xml' (expected table, csv, json, markdown)");
}

// A file of records, as read_results would return it, lines 1..n.
ResultsFile file_of(std::vector<Json> records) {
  ResultsFile f;
  f.path = "bad.jsonl";
  f.records = std::move(records);
  for (std::size_t i = 0; i < f.records.size(); ++i) f.lines.push_back(i + 1);
  return f;
}

Json notify_header() {
  return Json::parse(R"({"record":"header","probe":"notify","host":"n1","device":{"name":"CPU","backend":"host",
    "timer_tick_ns":1.0},"host_clock":{"source":"steady"}})");
}

Json roundtrip() {
  return Json::parse(R"({"record":"roundtrip","probe":"notify","direction":"cpu-gpu-cpu","timed_by":"host",
    "setup":{"cpu_order":"volatile","gpu_order":"volatile","placement":"pinned","spacing":"line"},
    "roundtrip_ns":{"n":10,"median":100.0,"p10":90.0,"p90":120.0},"half_roundtrip_ns":{"median":50.0},"rank":0})");
}

TEST(ResultsReport, NotifyHeaderWithMissingFieldsIsNamedNotACrash) {
  Json h = notify_header();
  h.erase("host_clock");
  expect_usage_error([&] { results_report(file_of({h, roundtrip()})); },
                     "bad.jsonl:1: field 'host_clock.source' is missing");
  h = notify_header();
  h["device"]["name"] = 5;
  expect_usage_error([&] { results_report(file_of({h, roundtrip()})); },
                     "bad.jsonl:1: field 'device.name': expected a string, got number 5");
}

TEST(ResultsReport, NotifyRecordWithWrongTypeIsNamed) {
  Json r = roundtrip();
  r["roundtrip_ns"]["median"] = "fast";
  expect_usage_error([&] { results_report(file_of({notify_header(), r})); },
                     "bad.jsonl:2: field 'roundtrip_ns.median': expected a number or null, got string");
  r = roundtrip();
  r.erase("setup");
  expect_usage_error([&] { results_report(file_of({notify_header(), r})); }, "bad.jsonl:2: field 'setup.cpu_order'");
}

TEST(ResultsReport, RecordsOfAnotherProbeAreRefused) {
  const Json other = Json::parse(R"({"record":"point","probe":"bandwidth"})");
  expect_usage_error([&] { results_report(file_of({notify_header(), roundtrip(), other})); },
                     "bad.jsonl:3: a bandwidth record in a file of notify results");
}

TEST(ResultsReport, AFileWithoutAHeaderIsNamed) {
  expect_usage_error([&] { results_report(file_of({roundtrip()})); }, "bad.jsonl:1: not a hetprobe results header");
  expect_usage_error([&] { results_report(file_of({})); }, "bad.jsonl holds no results");
}

TEST(ResultsReport, NotifyTableHasUnitsAndValues) {
  const Report r = results_report(file_of({notify_header(), roundtrip()}));
  ASSERT_EQ(r.tables.size(), 1u);  // only the parts that have records
  EXPECT_EQ(r.tables[0].key, "roundtrip");
  const std::string text = printed(TableFormat::table, r);
  EXPECT_NE(text.find("median_ns"), std::string::npos) << text;
  EXPECT_NE(text.find("100.0"), std::string::npos) << text;
  EXPECT_NE(text.find("## Round trip"), std::string::npos) << text;
}

const std::string kData = HETPROBE_TEST_DATA_DIR "/../../notebooks/data/";

TEST(ResultsReport, CommittedFilesOfEveryProbeShow) {
  const std::pair<const char*, std::size_t> files[] = {{"h200-interference-sweep.jsonl.gz", 72},
                                                       {"h200x2-load/matrix.jsonl.gz", 279},
                                                       {"h200-clock.jsonl", 7},
                                                       {"h200x2-halo/paper-1.jsonl.gz", 18},
                                                       {"h200x2-load/bandwidth.jsonl", 14},
                                                       {"h200-bandwidth.jsonl", 3},
                                                       {"h200-notify.jsonl.gz", 24}};
  for (const auto& [name, first_table_rows] : files) {
    const Report r = results_report(read_results(kData + name));
    ASSERT_FALSE(r.tables.empty()) << name;
    EXPECT_EQ(r.tables[0].rows.size(), first_table_rows) << name;
  }
}

// The position of column `name` in table t.
std::size_t column(const Table& t, const std::string& name) {
  const auto at = std::find_if(t.columns.begin(), t.columns.end(), [&](const Column& c) { return c.name == name; });
  EXPECT_NE(at, t.columns.end()) << name;
  return static_cast<std::size_t>(at - t.columns.begin());
}

// The gap is read from its kind: a spin names its label, a run without one
// (kind "none", or a file from before --gap) says nothing of a gap.
TEST(ResultsReport, TheGapIsNamedByItsKind) {
  const Report spun = results_report(read_results(kData + "h100-rounds/interference-gap2ms.jsonl.gz"));
  ASSERT_FALSE(spun.about.empty());
  EXPECT_NE(spun.about[0].find(", gap 2ms before each send"), std::string::npos) << spun.about[0];
  const Report plain = results_report(read_results(kData + "h200-interference-sweep.jsonl.gz"));
  ASSERT_FALSE(plain.about.empty());
  EXPECT_EQ(plain.about[0].find("gap"), std::string::npos) << plain.about[0];
}

TEST(ResultsReport, BandwidthComparesOnlyWithAPlainPass) {
  const Report r = results_report(read_results(kData + "h200x2-load/bandwidth.jsonl"));
  const Table& t = r.tables[0];
  for (const auto& row : t.rows) {
    const std::string traffic = row[0].get<std::string>();
    const bool compared = traffic.rfind("plain", 0) != 0 && traffic.find("poll") == std::string::npos;
    EXPECT_EQ(row[column(t, "vs_plain_pct")].is_number(), compared) << traffic;
  }
}

// A row's keys beside its display name, in a version-1 file too (read back from the name).
TEST(ResultsReport, BandwidthRowsHaveTheirKeys) {
  const Report r = results_report(read_results(kData + "h200x2-load/bandwidth.jsonl"));
  const Table& t = r.tables[0];
  std::vector<std::string> keys;
  for (const auto& row : t.rows)
    keys.push_back(row[0].get<std::string>() + ": " + row[column(t, "pass")].get<std::string>() + " " +
                   row[column(t, "kind")].get<std::string>() + " " + row[column(t, "access")].dump());
  EXPECT_EQ(
      keys,
      (std::vector<std::string>{"plain one-pass kernel: plain write null", "plain read: plain read null",
                                "plain copy-d2h: plain copy-d2h null", "plain copy-h2d: plain copy-h2d null",
                                "stream (persistent): persistent write \"stream\"",
                                "stacked (persistent): persistent write \"stacked\"",
                                "load write stream: load write \"stream\"",
                                "load write stacked: load write \"stacked\"", "load read stream: load read \"stream\"",
                                "load read stacked: load read \"stacked\"", "load poll stream: load poll \"stream\"",
                                "load poll stacked: load poll \"stacked\"", "load copy-d2h: load copy-d2h null",
                                "load copy-h2d: load copy-h2d null"}));
}

}  // namespace
}  // namespace hetprobe
