// Where results may go: only regular files, never another probe's file or a
// file that is not results, and a resumed file read back whole. Every refusal
// leaves what was there as it was.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>

#include "bench/core/results.hpp"
#include "tests/unit/expect_usage_error.hpp"
#include "tests/unit/scratch_dir.hpp"

namespace hetprobe {
namespace {

namespace fs = std::filesystem;

class ResultsTargetTest : public ::testing::Test {
 protected:
  fs::path file(const std::string& name) const { return dir_ / name; }
  static std::string slurp(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  static void put(const fs::path& path, const std::string& bytes) { std::ofstream(path, std::ios::binary) << bytes; }
  static std::string header(const std::string& probe) {
    return Json{{"record", "header"}, {"schema", "hetprobe.results"}, {"schema_version", 3}, {"probe", probe}}.dump() +
           "\n";
  }

  ScratchDir scratch_{"hetprobe_target"};
  const fs::path dir_ = scratch_.path();
};

bool is_char_device(const char* path) {
  struct stat st{};
  return ::stat(path, &st) == 0 && S_ISCHR(st.st_mode);
}

TEST_F(ResultsTargetTest, WriterRefusesADirectoryADeviceAndAFifoWithoutBlocking) {
  expect_usage_error([&] { ResultsWriter w(dir_); }, "is a directory");
  ASSERT_TRUE(is_char_device("/dev/null"));
  expect_usage_error([] { ResultsWriter w("/dev/null"); }, "/dev/null is a character device, not a regular file");
  EXPECT_TRUE(is_char_device("/dev/null"));  // still the device node
  const fs::path fifo = file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_usage_error([&] { ResultsWriter w(fifo); }, "is a FIFO");  // no reader: a blocking open would hang
}

TEST_F(ResultsTargetTest, ReaderRefusesDevicesAndFifosWithoutBlocking) {
  expect_usage_error([] { read_results("/dev/zero"); }, "character device");  // never ends if read
  const fs::path fifo = file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_usage_error([&] { read_results(fifo); }, "is a FIFO");  // no writer: a blocking open would hang
}

TEST_F(ResultsTargetTest, SymlinkToARegularFileIsFine) {
  const fs::path target = file("real.jsonl"), link = file("link.jsonl");
  put(target, header("notify"));
  fs::create_symlink(target, link);
  ResultsWriter(link).write(Json{{"record", "x"}, {"probe", "notify"}});
  EXPECT_EQ(read_results(target).records.size(), 2u);
  EXPECT_TRUE(fs::is_symlink(link));
}

TEST_F(ResultsTargetTest, NewAndEmptyFilesAreTaken) {
  const OpenedResults fresh = open_results_for("notify", file("new.jsonl"), Resume::unavailable);
  EXPECT_TRUE(fresh.existing.records.empty());
  EXPECT_TRUE(fs::exists(file("new.jsonl")));
  put(file("empty.jsonl"), "");
  EXPECT_TRUE(open_results_for("notify", file("empty.jsonl"), Resume::off).existing.records.empty());
}

TEST_F(ResultsTargetTest, AnotherProbesFileIsRefusedNamingWhatItHolds) {
  const fs::path f = file("notify.jsonl");
  const std::string bytes = header("notify") + "{\"record\":\"roundtrip\",\"probe\":\"notify\"}\n";
  put(f, bytes);
  for (Resume r : {Resume::unavailable, Resume::off, Resume::on})
    expect_usage_error([&] { open_results_for("bandwidth", f, r); }, "holds notify results, not bandwidth results");
  EXPECT_EQ(slurp(f), bytes);
}

TEST_F(ResultsTargetTest, AFileThatIsNotResultsIsRefusedUnchanged) {
  for (const std::string bytes :
       {"# notes\nmore notes\n", "{\"record\":\"point\"}\n", "{\"record\":\"header\"", "no newline at all"}) {
    const fs::path f = file("notes.txt");
    put(f, bytes);
    // Even with --resume: an incomplete first line is never dropped (it may not be a killed run's).
    expect_usage_error([&] { open_results_for("halo", f, Resume::on); }, "is not a hetprobe results file");
    EXPECT_EQ(slurp(f), bytes);
  }
}

TEST_F(ResultsTargetTest, ResultsOfThisProbeNeedResume) {
  const fs::path f = file("i.jsonl");
  const std::string bytes = header("interference") + "{\"record\":\"point\",\"probe\":\"interference\"}\n";
  put(f, bytes);
  expect_usage_error([&] { open_results_for("interference", f, Resume::unavailable); }, "already has results: choose");
  expect_usage_error([&] { open_results_for("interference", f, Resume::off); }, "add --resume");
  EXPECT_EQ(slurp(f), bytes);
  put(f, bytes + "{\"record\":\"po");  // a run killed mid-line
  const OpenedResults resumed = open_results_for("interference", f, Resume::on);
  EXPECT_EQ(resumed.existing.records.size(), 2u);
  EXPECT_TRUE(resumed.existing.truncated_tail);
  EXPECT_EQ(slurp(f), bytes + "{\"record\":\"po");  // left for the caller to drop once it accepts the file
  drop_truncated_tail(f, resumed.existing);
  EXPECT_EQ(slurp(f), bytes);
}

TEST_F(ResultsTargetTest, OptionIsNamedInRefusals) {
  expect_usage_error([] { open_results_for("clock", "/dev/null", Resume::unavailable); },
                     "--out /dev/null is a character device");
  expect_usage_error([&] { open_results_for("clock", dir_, Resume::unavailable); }, "is a directory");
  expect_usage_error([&] { open_results_for("clock", dir_ / "missing" / "c.jsonl", Resume::unavailable); },
                     "does not exist (create it first)");
  EXPECT_FALSE(fs::exists(dir_ / "missing"));
}

// The read-only check creates nothing and agrees with opening.
TEST_F(ResultsTargetTest, CheckCreatesNothing) {
  EXPECT_FALSE(check_results_target("notify", file("n.jsonl"), Resume::unavailable));
  EXPECT_FALSE(fs::exists(file("n.jsonl")));
  put(file("h.jsonl"), header("halo"));
  EXPECT_TRUE(check_results_target("halo", file("h.jsonl"), Resume::on));
  expect_usage_error([&] { check_results_target("clock", file("h.jsonl"), Resume::on); }, "holds halo results");
  const fs::path fifo = file("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  expect_usage_error([&] { check_results_target("clock", fifo, Resume::unavailable); }, "is a FIFO (named pipe)");
}

}  // namespace
}  // namespace hetprobe
