// A halo part size's one parser, JSON form and text form (bench/halo/halo_parts.hpp).
#include "bench/halo/halo_parts.hpp"

#include <gtest/gtest.h>

#include "expect_usage_error.hpp"

namespace hetprobe {
namespace {

TEST(HaloParts, ParsesAutoWholeAndSizes) {
  EXPECT_EQ(parse_part_size("auto"), PartSize::automatic());
  EXPECT_EQ(parse_part_size("whole"), PartSize::whole());
  EXPECT_EQ(parse_part_size("32KiB"), PartSize::of(32768));
  EXPECT_EQ(parse_part_size("32768"), PartSize::of(32768));
  EXPECT_EQ(parse_part_size("16"), PartSize::of(16));
  EXPECT_EQ(parse_part_size("1GiB"), PartSize::of(1ull << 30));
  expect_usage_error([] { parse_part_size("8"); }, "a part is 16 B to 1 GiB, not 8");
  expect_usage_error([] { parse_part_size("2GiB"); }, "not 2GiB");
  expect_usage_error([] { parse_part_size("half"); }, "a part is auto, whole or a size like 32KiB, not half");
  expect_usage_error([] { parse_part_size("Auto"); }, "not Auto");
}

TEST(HaloParts, AListNamesEachPartOnce) {
  const std::vector<PartSize> parts = parse_part_sizes("auto,whole,8KiB");
  EXPECT_EQ(parts, (std::vector<PartSize>{PartSize::automatic(), PartSize::whole(), PartSize::of(8192)}));
  expect_usage_error([] { parse_part_sizes("32KiB,32768"); }, "part '32768' is listed twice");
  expect_usage_error([] { parse_part_sizes("auto,"); }, "an empty item");
}

TEST(HaloParts, TextAndJsonForms) {
  EXPECT_EQ(to_string(PartSize::automatic()), "auto");
  EXPECT_EQ(to_string(PartSize::whole()), "whole");
  EXPECT_EQ(to_string(PartSize::of(32768)), "32KiB");
  EXPECT_EQ(to_string(PartSize::of(1536)), "1536B");
  EXPECT_EQ(to_json(PartSize::automatic()), "auto");
  EXPECT_EQ(to_json(PartSize::whole()), "whole");
  EXPECT_EQ(to_json(PartSize::of(32768)), 32768);
}

// What a record or a table holds reads back as the value it was written from.
TEST(HaloParts, TextAndJsonReadBack) {
  for (PartSize p : {PartSize::automatic(), PartSize::whole(), PartSize::of(16), PartSize::of(1536),
                     PartSize::of(32768), PartSize::of(1ull << 30)}) {
    EXPECT_EQ(parse_part_size(to_string(p)), p) << to_string(p);
    const Json record{{"parts", to_json(p)}};
    EXPECT_EQ(part_size_at({record, "r.jsonl:2"}, "parts"), p) << to_string(p);
  }
}

TEST(HaloParts, ABadJsonFormIsTheFilesFault) {
  for (const char* bad : {"0", "-1", "1.5", "\"half\"", "null", "[]"}) {
    const Json record{{"parts", Json::parse(bad)}};
    expect_usage_error([&] { part_size_at({record, "r.jsonl:2"}, "parts"); }, "r.jsonl:2: field 'parts'");
  }
}

}  // namespace
}  // namespace hetprobe
