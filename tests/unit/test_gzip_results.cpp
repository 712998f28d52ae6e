// gzip-compressed results files (*.jsonl.gz): read as their text, by the
// gzip magic rather than the name; never a target to write or resume into.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "bench/core/gzip_text.hpp"
#include "bench/core/results.hpp"
#include "tests/unit/expect_usage_error.hpp"
#include "tests/unit/scratch_dir.hpp"

namespace hetprobe {
namespace {

namespace fs = std::filesystem;

// gzip bytes of `text`, as `gzip` writes them (one member).
std::string gzip_of(const std::string& text) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, text.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

class GzipResultsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    text_ = Json{{"record", "header"}, {"schema", "hetprobe.results"}, {"schema_version", 3}, {"probe", "interference"}}
                .dump() +
            "\n";
    for (int i = 1; i < 200; ++i) text_ += Json{{"record", "point"}, {"probe", "interference"}, {"i", i}}.dump() + "\n";
  }
  fs::path put(const std::string& name, const std::string& bytes) const {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
    return dir_ / name;
  }

  ScratchDir scratch_{"hetprobe_gzip"};
  const fs::path dir_ = scratch_.path();
  std::string text_;
};

TEST_F(GzipResultsTest, ACompressedFileReadsAsItsText) {
  const ResultsFile plain = read_results(put("r.jsonl", text_));
  const ResultsFile packed = read_results(put("r.jsonl.gz", gzip_of(text_)));
  EXPECT_EQ(packed.records, plain.records);
  EXPECT_EQ(packed.lines, plain.lines);
  EXPECT_FALSE(packed.truncated_tail);
  EXPECT_EQ(packed.records.size(), 200u);
  // By its bytes, not its name: gzip bytes under a plain name read the same.
  EXPECT_EQ(read_results(put("other.jsonl", gzip_of(text_))).records, plain.records);
}

TEST_F(GzipResultsTest, MembersOneAfterAnotherReadInOrder) {
  const std::string half = text_.substr(0, text_.size() / 2);
  const std::string first = half.substr(0, half.rfind('\n') + 1), second = text_.substr(first.size());
  EXPECT_EQ(gunzip(gzip_of(first) + gzip_of(second), "cat", kMaxResultsTextBytes), text_);
}

// A small file whose text passes the bound is refused as soon as it does (issue
// 36: a gzip of newlines or of points ran show and merge out of memory).
TEST_F(GzipResultsTest, AStreamPastTheBoundIsRefusedNamed) {
  const std::string packed = gzip_of(text_);
  EXPECT_EQ(gunzip(packed, "fits", text_.size()), text_);
  expect_usage_error([&] { gunzip(packed, "bomb.jsonl.gz", text_.size() - 1); },
                     "bomb.jsonl.gz: decompressed, its text passes");
  const fs::path newlines = put("newlines.jsonl.gz", gzip_of(std::string(kMaxResultsLines + 1, '\n')));
  expect_usage_error([&] { read_results(newlines); }, newlines.string() + ": more than 10000000 lines");
  const fs::path long_line = put("long.jsonl.gz", gzip_of(std::string(kMaxRecordBytes + 1, ' ') + "\n"));
  expect_usage_error([&] { read_results(long_line); }, long_line.string() + ":1: a line longer than 64 MiB");
}

TEST_F(GzipResultsTest, AStreamCutShortReadsUpToTheCut) {
  const std::string packed = gzip_of(text_);
  const ResultsFile cut = read_results(put("cut.jsonl.gz", packed.substr(0, packed.size() / 2)));
  EXPECT_TRUE(cut.truncated_tail);
  ASSERT_FALSE(cut.records.empty());
  EXPECT_LT(cut.records.size(), 200u);
  EXPECT_EQ(cut.records.back()["i"], static_cast<int>(cut.records.size()) - 1);  // every record whole, in order
}

TEST_F(GzipResultsTest, ACorruptStreamIsABadFileNamed) {
  std::string packed = gzip_of(text_);
  packed[3] = '\xff';  // reserved flag bits: not gzip any more
  const fs::path f = put("bad.jsonl.gz", packed);
  expect_usage_error([&] { read_results(f); }, f.string() + ": not a valid gzip file");
}

TEST_F(GzipResultsTest, ResultsFileNames) {
  EXPECT_TRUE(is_results_file_name("a/notify.jsonl"));
  EXPECT_TRUE(is_results_file_name("notify.jsonl.gz"));
  EXPECT_FALSE(is_results_file_name("notify.txt"));
  EXPECT_FALSE(is_results_file_name(".jsonl"));
  EXPECT_FALSE(is_results_file_name("notify.jsonl.gz.tmp"));
  EXPECT_EQ(results_stem("d/interference.launch2.jsonl.gz"), "interference.launch2");
  EXPECT_EQ(results_stem("notify.jsonl"), "notify");
  EXPECT_EQ(results_stem("run.txt"), "run");
}

TEST_F(GzipResultsTest, NeitherWrittenNorResumedInto) {
  expect_usage_error([&] { open_results_for("interference", dir_ / "new.jsonl.gz", Resume::on); },
                     "writes plain JSON Lines, not gzip");
  const fs::path f = put("old.jsonl", gzip_of(text_));
  expect_usage_error([&] { open_results_for("interference", f, Resume::on); }, "is gzip-compressed");
  EXPECT_EQ(fs::file_size(f), gzip_of(text_).size());  // left as it was
}

}  // namespace
}  // namespace hetprobe
