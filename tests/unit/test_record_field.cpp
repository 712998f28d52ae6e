// Checked access to record fields: every way a field can be wrong is a usage
// Error naming FILE:LINE and the field, never a crash or the JSON library's text.
#include "bench/core/record_field.hpp"

#include <gtest/gtest.h>

#include <cstdint>

#include "tests/unit/expect_usage_error.hpp"

namespace hetprobe {
namespace {

const Json kRecord = Json::parse(R"({"name": "x", "n": 12, "neg": -3, "big": 8589934592, "ratio": 0.5, "flag": true,
  "none": null, "summary": {"median": 2.5, "p90": "fast"}, "empty": null, "warnings": ["p90 is 3x the median"]})");

RecordRef at_line_3() { return {kRecord, "run.jsonl:3"}; }

TEST(RecordField, ReadsEachTypeAndDottedPaths) {
  const RecordRef r = at_line_3();
  EXPECT_EQ(field<std::string>(r, "name"), "x");
  EXPECT_EQ(field<int>(r, "n"), 12);
  EXPECT_EQ(field<std::int64_t>(r, "neg"), -3);
  EXPECT_EQ(field<std::uint64_t>(r, "big"), 8589934592u);
  EXPECT_EQ(field<double>(r, "n"), 12.0);  // a whole number is a number
  EXPECT_EQ(field<double>(r, "summary.median"), 2.5);
  EXPECT_TRUE(field<bool>(r, "flag"));
  EXPECT_EQ(record_warnings(r), std::vector<std::string>{"p90 is 3x the median"});
}

TEST(RecordField, MissingFieldNamesFileLineAndPath) {
  expect_usage_error([] { field<double>(at_line_3(), "summary.p10"); }, "run.jsonl:3: field 'summary.p10' is missing");
  expect_usage_error([] { field<double>(at_line_3(), "absent"); }, "field 'absent' is missing");
  // A null summary (no samples) has no fields: absent, not a crash.
  expect_usage_error([] { field<double>(at_line_3(), "empty.median"); }, "field 'empty.median' is missing");
}

TEST(RecordField, WrongTypeSaysWhatWasExpectedAndWhatCame) {
  expect_usage_error([] { field<double>(at_line_3(), "summary.p90"); },
                     "run.jsonl:3: field 'summary.p90': expected a number, got string \"fast\"");
  expect_usage_error([] { field<std::string>(at_line_3(), "n"); }, "expected a string, got number 12");
  expect_usage_error([] { field<bool>(at_line_3(), "name"); }, "expected true or false");
  expect_usage_error([] { field<int>(at_line_3(), "ratio"); }, "expected a whole number");
  expect_usage_error([] { field<int>(at_line_3(), "big"); }, "expected a whole number in [-2147483648, 2147483647]");
  expect_usage_error([] { field<std::uint64_t>(at_line_3(), "neg"); }, "expected a whole number at least 0");
  expect_usage_error([] { field<double>(at_line_3(), "name.median"); }, "field 'name': expected an object, got string");
}

TEST(RecordField, FallbacksOnlyForAbsentOrNull) {
  EXPECT_EQ(field_or<int>(at_line_3(), "absent", 7), 7);
  EXPECT_EQ(field_or<int>(at_line_3(), "none", 7), 7);
  EXPECT_EQ(field_or<int>(at_line_3(), "n", 7), 12);
  expect_usage_error([] { field_or<int>(at_line_3(), "name", 7); }, "field 'name': expected a whole number");
  EXPECT_TRUE(number_or_null(at_line_3(), "none").is_null());
  EXPECT_TRUE(number_or_null(at_line_3(), "empty.median").is_null());
  EXPECT_EQ(number_or_null(at_line_3(), "ratio"), Json(0.5));
  expect_usage_error([] { number_or_null(at_line_3(), "name"); }, "expected a number or null");
}

TEST(RecordField, WarningsMustBeSentences) {
  const Json bad = Json::parse(R"({"warnings": "noisy"})");
  expect_usage_error([&] { record_warnings({bad, "f:1"}); }, "f:1: field 'warnings': expected a list of strings");
  const Json none = Json::parse(R"({"record": "point"})");
  EXPECT_TRUE(record_warnings({none, "f:1"}).empty());
}

TEST(RecordField, ARecordThatIsNotAnObjectIsAnError) {
  const Json list = Json::array({1, 2});
  expect_usage_error([&] { field<int>({list, "f:9"}, "n"); }, "f:9");
}

}  // namespace
}  // namespace hetprobe
