// Unit tests for message-size parsing and formatting.
#include "bench/core/sizes.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "base/errors.hpp"
#include "base/text_list.hpp"

namespace hetprobe {
namespace {

using Sizes = std::vector<std::uint64_t>;

constexpr std::uint64_t kKiB = 1024;
constexpr std::uint64_t kMiB = kKiB * 1024;
constexpr std::uint64_t kGiB = kMiB * 1024;
constexpr std::uint64_t kTiB = kGiB * 1024;

// Runs `call`, which must throw a usage Error whose message quotes `text`.
void expect_usage_error(const std::function<void()>& call, const std::string& text) {
  try {
    call();
    ADD_FAILURE() << "no exception for \"" << text << "\"";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::usage) << e.what();
    EXPECT_NE(std::string(e.what()).find("\"" + text + "\""), std::string::npos)
        << "message does not name \"" << text << "\": " << e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type for \"" << text << "\": " << e.what();
  }
}

void expect_bad_size(const std::string& text) {
  SCOPED_TRACE(text);
  expect_usage_error([&] { parse_size(text); }, text);
  // The same item must be rejected inside a list too.
  if (!text.empty()) expect_usage_error([&] { parse_size_list("8," + text); }, text);
}

// A bad list or range: the message must name `culprit` (the item or range).
void expect_bad_list(const std::string& text, const std::string& culprit) {
  SCOPED_TRACE(text);
  expect_usage_error([&] { parse_size_list(text); }, culprit);
}

TEST(ParseSize, PlainBytes) {
  EXPECT_EQ(parse_size("1"), 1u);
  EXPECT_EQ(parse_size("8"), 8u);
  EXPECT_EQ(parse_size("8B"), 8u);
  EXPECT_EQ(parse_size("4096"), 4096u);
  EXPECT_EQ(parse_size("007"), 7u);
}

TEST(ParseSize, DecimalUnits) {
  EXPECT_EQ(parse_size("1KB"), 1'000u);
  EXPECT_EQ(parse_size("1kB"), 1'000u);
  EXPECT_EQ(parse_size("2MB"), 2'000'000u);
  EXPECT_EQ(parse_size("3GB"), 3'000'000'000u);
  EXPECT_EQ(parse_size("4TB"), 4'000'000'000'000u);
}

TEST(ParseSize, BinaryUnits) {
  EXPECT_EQ(parse_size("1KiB"), 1024u);
  EXPECT_EQ(parse_size("2MiB"), 2 * kMiB);
  EXPECT_EQ(parse_size("3GiB"), 3 * kGiB);
  EXPECT_EQ(parse_size("4TiB"), 4 * kTiB);
}

TEST(ParseSize, BareLettersAreBinary) {
  EXPECT_EQ(parse_size("1K"), kKiB);
  EXPECT_EQ(parse_size("128M"), 128 * kMiB);
  EXPECT_EQ(parse_size("2G"), 2 * kGiB);
  EXPECT_EQ(parse_size("1T"), kTiB);
}

TEST(ParseSize, FractionsThatAreWholeBytes) {
  EXPECT_EQ(parse_size("1.5KiB"), 1536u);
  EXPECT_EQ(parse_size("0.5MiB"), 512 * kKiB);
  EXPECT_EQ(parse_size("1.25K"), 1280u);
  EXPECT_EQ(parse_size("2.5KB"), 2500u);
  EXPECT_EQ(parse_size("0.001KB"), 1u);
  EXPECT_EQ(parse_size("1.000001MB"), 1'000'001u);
  EXPECT_EQ(parse_size("0.0009765625KiB"), 1u);  // 2^-10 exactly
  EXPECT_EQ(parse_size("1.50KiB"), 1536u);       // trailing zeros are harmless
  EXPECT_EQ(parse_size("3.0B"), 3u);
  EXPECT_EQ(parse_size("1.5TiB"), kTiB + kTiB / 2);
}

TEST(ParseSize, LargestSizes) {
  EXPECT_EQ(parse_size("9223372036854775807"), 9223372036854775807u);  // 2^63 - 1
  EXPECT_EQ(parse_size("8388607TiB"), 8388607 * kTiB);                 // 2^63 - 2^40
}

TEST(ParseSize, RejectsMalformed) {
  for (const char* text : {"", "KiB", "B", ".5KiB", "1.KiB", "1.5.5K", "+1", " 1", "1 ", "1e3", "0x10", "abc"}) {
    expect_bad_size(text);
  }
  expect_usage_error([] { parse_size("1,5"); }, "1,5");  // a list is not a size
}

TEST(ParseSize, RejectsNegativeAndZero) {
  for (const char* text : {"-1", "-1KiB", "0", "0B", "0KiB", "0.0MiB", "00"}) {
    expect_bad_size(text);
  }
}

TEST(ParseSize, RejectsUnknownUnits) {
  // Units are case-sensitive and take no space.
  for (const char* text :
       {"1 KiB", "1kib", "1KIB", "1k", "1b", "1mb", "1Kb", "1KiB ", "1PiB", "1PB", "1XB", "1Ki", "1iB", "1BB"}) {
    expect_bad_size(text);
  }
}

TEST(ParseSize, RejectsNonWholeBytes) {
  for (const char* text : {"1.5B", "1.5", "0.3KiB", "0.0001KB", "1.0000000001GB", "0.00000000000000000001TB"}) {
    expect_bad_size(text);
  }
}

TEST(ParseSize, RejectsOverflow) {
  for (const char* text : {"9223372036854775808", "8388608TiB", "18446744073709551616", "99999999999999999999999",
                           "20000000000TB", "9223372036854775.808KB"}) {
    expect_bad_size(text);
  }
}

TEST(ParseSizeList, ExplicitList) {
  EXPECT_EQ(parse_size_list("8,1KiB,4MiB"), (Sizes{8, kKiB, 4 * kMiB}));
  EXPECT_EQ(parse_size_list("64"), (Sizes{64}));
}

TEST(ParseSizeList, SortsAndRemovesDuplicates) {
  EXPECT_EQ(parse_size_list("4K,8,4096,1K,8,1KB"), (Sizes{8, 1000, kKiB, 4 * kKiB}));
}

TEST(ParseSizeList, GeometricRangeHittingMax) {
  Sizes expected;
  for (std::uint64_t s = kKiB; s <= 64 * kMiB; s *= 2) expected.push_back(s);
  ASSERT_EQ(expected.size(), 17u);
  EXPECT_EQ(parse_size_list("1KiB:64MiB:x2"), expected);
  EXPECT_EQ(parse_size_list("1KiB:64MiB"), expected);  // factor 2 by default
}

TEST(ParseSizeList, GeometricRangeMissingMax) {
  EXPECT_EQ(parse_size_list("1:100:x4"), (Sizes{1, 4, 16, 64}));
  EXPECT_EQ(parse_size_list("3:100"), (Sizes{3, 6, 12, 24, 48, 96}));
  EXPECT_EQ(parse_size_list("1K:9K:x10"), (Sizes{kKiB}));
  EXPECT_EQ(parse_size_list("1K:10K:x10"), (Sizes{kKiB, 10 * kKiB}));
}

TEST(ParseSizeList, ArithmeticRanges) {
  Sizes expected;  // 1 KiB, 65 KiB, ..., 961 KiB: 1025 KiB would pass 1 MiB
  for (std::uint64_t k = 0; k < 16; ++k) expected.push_back(kKiB + k * 64 * kKiB);
  EXPECT_EQ(parse_size_list("1KiB:1MiB:+64KiB"), expected);
  EXPECT_EQ(parse_size_list("10:50:+10"), (Sizes{10, 20, 30, 40, 50}));
  EXPECT_EQ(parse_size_list("1KB:3KB:+500B"), (Sizes{1000, 1500, 2000, 2500, 3000}));
  EXPECT_EQ(parse_size_list("1:2:+0.5KiB"), (Sizes{1}));  // step larger than the range
  EXPECT_EQ(parse_size_list("1:9223372036854775807:+9223372036854775807"), (Sizes{1}));
}

TEST(ParseSizeList, SingleElementRanges) {
  EXPECT_EQ(parse_size_list("4K:4K"), (Sizes{4 * kKiB}));
  EXPECT_EQ(parse_size_list("4K:4K:+1"), (Sizes{4 * kKiB}));
}

TEST(ParseSizeList, MixedListsAndRanges) {
  EXPECT_EQ(parse_size_list("8,1KiB:4KiB,3000,2KiB"), (Sizes{8, kKiB, 2 * kKiB, 3000, 4 * kKiB}));
  EXPECT_EQ(parse_size_list("1:4,2:8:+2,100"), (Sizes{1, 2, 4, 6, 8, 100}));
}

TEST(ParseSizeList, RangesNearTheLimitDoNotOverflow) {
  const std::uint64_t max = 9223372036854775807u;  // 2^63 - 1
  const Sizes powers = parse_size_list("1:9223372036854775807");
  ASSERT_EQ(powers.size(), 63u);
  EXPECT_EQ(powers.back(), std::uint64_t{1} << 62);
  EXPECT_EQ(parse_size_list("4611686018427387904:9223372036854775807:+4611686018427387904"),
            (Sizes{std::uint64_t{1} << 62}));
  EXPECT_EQ(parse_size_list("9223372036854775806:9223372036854775807:+1"), (Sizes{max - 1, max}));
  EXPECT_EQ(parse_size_list("3:9223372036854775807:x1000000000000").size(), 2u);
}

TEST(ParseSizeList, RejectsEmptyItems) {
  expect_bad_list("", "");
  expect_bad_list("8,,16", "8,,16");
  expect_bad_list("8,", "8,");
  expect_bad_list(",8", ",8");
}

TEST(ParseSizeList, RejectsBadItems) {
  expect_bad_list("8,1XB,16", "1XB");
  expect_bad_list("8,1.5B", "1.5B");
  expect_bad_list("0,8", "0");
}

TEST(ParseSizeList, RejectsBadRangeBounds) {
  for (const char* range : {"1KiB:", ":1KiB", "0:8", "-1:8", "1.5B:8", "1:8XB", "1:9223372036854775808"}) {
    expect_bad_list(range, range);
  }
}

TEST(ParseSizeList, RejectsMinAboveMax) {
  expect_bad_list("4K:1K", "4K:1K");
  expect_bad_list("8,2:1:+1", "2:1:+1");
}

TEST(ParseSizeList, RejectsBadFactors) {
  for (const char* range :
       {"1:8:x1", "1:8:x0", "1:8:x1.5", "1:8:x", "1:8:x-2", "1:8:x+2", "1:8:x2K", "1:8:x99999999999999999999"}) {
    expect_bad_list(range, range);
  }
}

TEST(ParseSizeList, RejectsBadSteps) {
  for (const char* range :
       {"1:8:+0", "1:8:+0KiB", "1:8:+", "1:8:+-1", "1:8:+1.5", "1:8:2", "1:8:", "1:8:-1", "1:2:3:4"}) {
    expect_bad_list(range, range);
  }
}

TEST(ParseSizeList, RejectsHugeLists) { expect_bad_list("1:1TiB:+1", "1:1TiB:+1"); }

TEST(FormatSize, LargestExactBinaryUnit) {
  EXPECT_EQ(format_size(0), "0 B");
  EXPECT_EQ(format_size(1), "1 B");
  EXPECT_EQ(format_size(1000), "1000 B");
  EXPECT_EQ(format_size(1536), "1536 B");
  EXPECT_EQ(format_size(1024), "1 KiB");
  EXPECT_EQ(format_size(3072), "3 KiB");
  EXPECT_EQ(format_size(64 * kMiB), "64 MiB");
  EXPECT_EQ(format_size(kMiB + kKiB), "1025 KiB");
  EXPECT_EQ(format_size(kGiB), "1 GiB");
  EXPECT_EQ(format_size(2 * kTiB), "2 TiB");
  EXPECT_EQ(format_size(1024 * kTiB), "1024 TiB");  // no unit above TiB
}

TEST(SplitList, ItemsBetweenSeparators) {
  EXPECT_EQ(split_list("stream,stacked", "--access"), (std::vector<std::string>{"stream", "stacked"}));
  EXPECT_EQ(split_list("one", "--access"), (std::vector<std::string>{"one"}));
  EXPECT_EQ(split_list("volatile:fence", "memory order", ':'), (std::vector<std::string>{"volatile", "fence"}));
}

// A stray separator is a mistake to report, naming the option: "stream," once ran stream alone.
TEST(SplitList, EmptyItemsAreUsageErrorsNamingTheOption) {
  for (const char* text : {"", ",", "stream,", ",stream", "stream,,stacked"}) {
    try {
      (void)split_list(text, "--access");
      ADD_FAILURE() << "no error for \"" << text << "\"";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::usage);
      EXPECT_NE(std::string(e.what()).find("--access '" + std::string(text) + "'"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW((void)split_list("volatile:", "memory order", ':'), Error);
}

TEST(FormatSize, RoundTripsThroughParse) {
  for (std::uint64_t bytes : {std::uint64_t{1}, std::uint64_t{1000}, 3 * kKiB, 5 * kMiB, 7 * kGiB, 9 * kTiB}) {
    std::string text = format_size(bytes);
    text.erase(text.find(' '), 1);  // the parser takes no space before the unit
    EXPECT_EQ(parse_size(text), bytes) << text;
  }
}

}  // namespace
}  // namespace hetprobe
