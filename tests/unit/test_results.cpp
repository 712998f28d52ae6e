// Unit tests for the JSON Lines results writer and reader.
#include "bench/core/results.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "base/errors.hpp"
#include "tests/unit/scratch_dir.hpp"

namespace hetprobe {
namespace {

namespace fs = std::filesystem;

// Each test gets a fresh directory under the system temp dir, removed after.
class ResultsTest : public ::testing::Test {
 protected:
  fs::path file(const std::string& name = "results.jsonl") const { return dir_ / name; }

  static std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  static void append_raw(const fs::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::app);
    out << bytes;
  }
  static Json record(int i) { return Json{{"probe", "stream"}, {"i", i}}; }

  ScratchDir scratch_{"hetprobe_results"};
  const fs::path dir_ = scratch_.path();
};

// Expects `f` to throw hetprobe::Error of `kind` whose message contains `needle`.
template <typename F>
void expect_error(F&& f, ErrorKind kind, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "expected hetprobe::Error(" << to_string(kind) << ")";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos)
        << "message '" << e.what() << "' lacks '" << needle << "'";
  }
}

TEST_F(ResultsTest, RoundTripKeepsOrderKeysAndExactNumbers) {
  const std::uint64_t u64_max = std::numeric_limits<std::uint64_t>::max();
  Json first;
  first["zeta"] = 1;  // deliberately not alphabetical
  first["alpha"] = 0.1;
  first["mid"] = 1.0 / 3.0;
  first["big"] = u64_max;
  first["neg"] = std::numeric_limits<std::int64_t>::min();
  first["tiny"] = 5e-324;
  first["nested"] = Json{{"b", 2}, {"a", Json::array({1, 2.5, nullptr})}};
  Json second{{"probe", "latency"}, {"ns", 123.456789012345}};
  {
    ResultsWriter writer(file());
    EXPECT_EQ(writer.path(), file());
    writer.write(first);
    writer.write(second);
  }
  EXPECT_EQ(slurp(file()), first.dump() + "\n" + second.dump() + "\n");

  const ResultsFile got = read_results(file());
  ASSERT_EQ(got.records.size(), 2u);
  EXPECT_FALSE(got.truncated_tail);
  EXPECT_EQ(got.valid_bytes, fs::file_size(file()));
  EXPECT_EQ(got.records[0], first);
  EXPECT_EQ(got.records[1], second);

  const Json& r = got.records[0];
  std::vector<std::string> keys;
  for (const auto& [key, value] : r.items()) keys.push_back(key);
  EXPECT_EQ(keys, (std::vector<std::string>{"zeta", "alpha", "mid", "big", "neg", "tiny", "nested"}));
  EXPECT_EQ(r["big"].get<std::uint64_t>(), u64_max);
  EXPECT_TRUE(r["big"].is_number_unsigned());
  EXPECT_EQ(r["neg"].get<std::int64_t>(), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(r["alpha"].get<double>(), 0.1);  // bit-exact, not EXPECT_DOUBLE_EQ
  EXPECT_EQ(r["mid"].get<double>(), 1.0 / 3.0);
  EXPECT_EQ(r["tiny"].get<double>(), 5e-324);
  EXPECT_EQ(got.records[1]["ns"].get<double>(), 123.456789012345);
}

TEST_F(ResultsTest, OpeningCreatesEmptyFileThatReadsEmpty) {
  {
    ResultsWriter writer(file());
  }
  ASSERT_TRUE(fs::exists(file()));
  EXPECT_EQ(fs::file_size(file()), 0u);
  const ResultsFile got = read_results(file());
  EXPECT_TRUE(got.records.empty());
  EXPECT_FALSE(got.truncated_tail);
  EXPECT_EQ(got.valid_bytes, 0u);
}

TEST_F(ResultsTest, AppendsToExistingFile) {
  {
    ResultsWriter(file()).write(record(0));
  }
  const auto size_after_first = fs::file_size(file());
  {
    ResultsWriter writer(file());  // must not truncate
    EXPECT_EQ(fs::file_size(file()), size_after_first);
    writer.write(record(1));
    writer.write(record(2));
  }
  const ResultsFile got = read_results(file());
  ASSERT_EQ(got.records.size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(got.records[i], record(i));
}

TEST_F(ResultsTest, MovedWriterKeepsWritingToSameFile) {
  ResultsWriter a(file());
  a.write(record(0));
  ResultsWriter b(std::move(a));
  b.write(record(1));
  ResultsWriter c(file("other.jsonl"));
  c = std::move(b);
  c.write(record(2));
  EXPECT_EQ(read_results(file()).records.size(), 3u);
  EXPECT_EQ(fs::file_size(file("other.jsonl")), 0u);
}

TEST_F(ResultsTest, TruncatedTailIsReportedDroppedAndAppendingResumes) {
  {
    ResultsWriter writer(file());
    writer.write(record(0));
    writer.write(record(1));
  }
  const auto good_size = fs::file_size(file());
  const std::string third = record(2).dump();
  append_raw(file(), third.substr(0, third.size() / 2));

  const ResultsFile got = read_results(file());
  ASSERT_EQ(got.records.size(), 2u);
  EXPECT_EQ(got.records[1], record(1));
  EXPECT_TRUE(got.truncated_tail);
  EXPECT_EQ(got.valid_bytes, good_size);

  drop_truncated_tail(file(), got);
  EXPECT_EQ(fs::file_size(file()), good_size);
  {
    ResultsWriter(file()).write(record(2));
  }

  const ResultsFile again = read_results(file());
  EXPECT_FALSE(again.truncated_tail);
  ASSERT_EQ(again.records.size(), 3u);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(again.records[i], record(i));
  EXPECT_EQ(again.valid_bytes, fs::file_size(file()));
}

TEST_F(ResultsTest, UnterminatedTailIsNotARecordEvenIfItParses) {
  {
    ResultsWriter(file()).write(record(0));
  }
  const auto good_size = fs::file_size(file());
  // A complete-looking object without its '\n': a writer may have been cut
  // after "12" of "123}"; the reader cannot tell, so it must not trust it.
  append_raw(file(), "{\"i\":12}");
  const ResultsFile got = read_results(file());
  ASSERT_EQ(got.records.size(), 1u);
  EXPECT_TRUE(got.truncated_tail);
  EXPECT_EQ(got.valid_bytes, good_size);
}

TEST_F(ResultsTest, UnparsableTerminatedLastLineIsTruncatedTail) {
  {
    ResultsWriter(file()).write(record(0));
  }
  const auto good_size = fs::file_size(file());
  append_raw(file(), "{\"i\": 1, \"x\n\n");  // trailing blank line does not make it "middle"
  const ResultsFile got = read_results(file());
  ASSERT_EQ(got.records.size(), 1u);
  EXPECT_TRUE(got.truncated_tail);
  EXPECT_EQ(got.valid_bytes, good_size);
}

TEST_F(ResultsTest, BlankLinesAreSkipped) {
  std::string text = "\n";  // appended: GCC 12 warns falsely (-Wrestrict) on "\n" + string
  text += record(0).dump() + "\n  \n\n" + record(1).dump() + "\n\n";
  append_raw(file(), text);
  const ResultsFile got = read_results(file());
  ASSERT_EQ(got.records.size(), 2u);
  EXPECT_EQ(got.records[0], record(0));
  EXPECT_EQ(got.records[1], record(1));
  EXPECT_EQ(got.lines, (std::vector<std::size_t>{2, 5}));  // errors name the file's own line numbers
  EXPECT_EQ(got.place(1), file().string() + ":5");
  EXPECT_FALSE(got.truncated_tail);
  EXPECT_EQ(got.valid_bytes, fs::file_size(file()));
}

// A malformed file is bad input (exit 2), named with its line.
TEST_F(ResultsTest, GarbageInTheMiddleThrowsWithLineNumber) {
  append_raw(file(), record(0).dump() + "\n\n" + "not json at all\n" + record(1).dump() + "\n");
  expect_error([&] { read_results(file()); }, ErrorKind::usage, file().string() + ":3");
}

TEST_F(ResultsTest, NonObjectLineThrows) {
  append_raw(file(), record(0).dump() + "\n[1, 2, 3]\n" + record(1).dump() + "\n");
  expect_error([&] { read_results(file()); }, ErrorKind::usage, ":2");
  const fs::path last = file("last.jsonl");  // also when it is the last line
  append_raw(last, record(0).dump() + "\n42\n");
  expect_error([&] { read_results(last); }, ErrorKind::usage, "not a JSON object");
}

TEST_F(ResultsTest, WriterRejectsNonObjectRecord) {
  ResultsWriter writer(file());
  expect_error([&] { writer.write(Json::array({1, 2})); }, ErrorKind::io, "not a JSON object");
  EXPECT_EQ(fs::file_size(file()), 0u);
}

TEST_F(ResultsTest, UnwritablePathsThrowUsage) {
  const fs::path missing_dir = dir_ / "no_such_dir" / "results.jsonl";
  expect_error([&] { ResultsWriter w(missing_dir); }, ErrorKind::usage, missing_dir.string());
  expect_error([&] { ResultsWriter w(missing_dir); }, ErrorKind::usage, "No such file or directory");
  EXPECT_FALSE(fs::exists(missing_dir.parent_path()));
  expect_error([&] { ResultsWriter w(dir_); }, ErrorKind::usage, "is a directory");
}

TEST_F(ResultsTest, ReadOnlyDirectoryThrowsUsage) {
  if (::geteuid() == 0) GTEST_SKIP() << "root ignores permission bits";
  const fs::path ro = dir_ / "ro";
  fs::create_directory(ro);
  fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
  expect_error([&] { ResultsWriter w(ro / "r.jsonl"); }, ErrorKind::usage, "Permission denied");
  fs::permissions(ro, fs::perms::owner_all);
}

TEST_F(ResultsTest, MissingFileOnReadThrowsUsage) {
  const fs::path missing = file("missing.jsonl");
  expect_error([&] { read_results(missing); }, ErrorKind::usage, missing.string());
  expect_error([&] { read_results(dir_); }, ErrorKind::usage, dir_.string());
}

TEST_F(ResultsTest, DropTruncatedTailIsNoOpWhenClean) {
  {
    ResultsWriter(file()).write(record(0));
  }
  const auto size = fs::file_size(file());
  ResultsFile clean = read_results(file());
  clean.valid_bytes = 0;  // must be ignored because truncated_tail is false
  drop_truncated_tail(file(), clean);
  EXPECT_EQ(fs::file_size(file()), size);
}

}  // namespace
}  // namespace hetprobe
