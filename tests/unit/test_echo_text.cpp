// Text from outside made fit to print and to put in JSON (echo_text.hpp), and
// small kernel files read with a bound (small_file.hpp).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "base/echo_text.hpp"
#include "base/small_file.hpp"

namespace hetprobe {
namespace {

namespace fs = std::filesystem;

TEST(EchoText, InvalidUtf8IsReplacedAndJsonTakesIt) {
  EXPECT_EQ(valid_utf8("16.0 GT/s"), "16.0 GT/s");
  EXPECT_EQ(valid_utf8("caf\xc3\xa9"), "caf\xc3\xa9") << "valid UTF-8 stays";
  EXPECT_EQ(valid_utf8("\xff\xfe"), "\xef\xbf\xbd\xef\xbf\xbd") << "each bad byte becomes U+FFFD";
  EXPECT_EQ(valid_utf8("a\xc3(b"), "a\xef\xbf\xbd(b") << "a sequence cut short";
  EXPECT_EQ(valid_utf8("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd") << "a surrogate is not UTF-8";
  EXPECT_EQ(valid_utf8("\xc0\xaf"), "\xef\xbf\xbd\xef\xbf\xbd") << "an overlong form is not UTF-8";
  EXPECT_EQ(valid_utf8("a\x1b[2Jb\tc"), "a?[2Jb\tc") << "control characters, but tab";
  const nlohmann::json j = valid_utf8("\xff GT/s \xc3");
  EXPECT_NO_THROW((void)j.dump());
}

TEST(EchoText, LongInputIsNamedByItsLengthNotRepeated) {
  EXPECT_EQ(echo_text("128"), "128");
  const std::string number(10'000'000, '7');
  const std::string echoed = echo_text(number);
  EXPECT_EQ(echoed, std::string(80, '7') + "... (10000000 characters)");
  EXPECT_EQ(echo_text(std::string(80, 'x')), std::string(80, 'x')) << "80 characters are shown whole";
  EXPECT_EQ(echo_text("\xc3\xa9\xc3\xa9\xc3\xa9", 2), "\xc3\xa9\xc3\xa9... (3 characters)") << "cut between characters";
}

class SmallFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("hetprobe-small-file-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(SmallFile, ReadsARegularFileUpToItsBound) {
  std::ofstream(dir_ / "speed") << "16.0 GT/s PCIe \r\nsecond line\n";
  EXPECT_EQ(read_first_line(dir_ / "speed"), "16.0 GT/s PCIe");
  std::ofstream(dir_ / "big") << std::string(10000, 'x');
  EXPECT_EQ(read_small_file(dir_ / "big", 100)->size(), 100u);
  std::string problem;
  EXPECT_FALSE(read_small_file(dir_ / "absent", 100, &problem));
  EXPECT_EQ(problem, "missing");
}

TEST_F(SmallFile, NeverReadsADeviceOrBlocksOnAFifo) {
  std::string problem;
  EXPECT_FALSE(read_first_line("/dev/zero", &problem)) << "it never ends";
  EXPECT_EQ(problem, "is a character device, not a regular file");
  ASSERT_EQ(::mkfifo((dir_ / "fifo").c_str(), 0600), 0);
  EXPECT_FALSE(read_first_line(dir_ / "fifo", &problem)) << "no writer: opening it would block";
  EXPECT_EQ(problem, "is a FIFO, not a regular file");
  EXPECT_FALSE(read_first_line(dir_, &problem));
  EXPECT_EQ(problem, "is a directory, not a regular file");
}

}  // namespace
}  // namespace hetprobe
