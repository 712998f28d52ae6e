// Numbers, intervals and load labels as every table, progress line and report
// writes them: one owner each, which Python's report reads through _core.
#include <gtest/gtest.h>

#include "base/number_text.hpp"
#include "bench/load/load_options.hpp"

namespace hetprobe {
namespace {

TEST(NumberText, FourSignificantDigitsThenWholeNumbersWithSeparators) {
  EXPECT_EQ(number_text(9.12345), "9.123");
  EXPECT_EQ(number_text(0.0125), "0.0125");
  EXPECT_EQ(number_text(1234.5), "1234");  // under 10,000: still 4 significant digits
  EXPECT_EQ(number_text(12345.6), "12,346");
  EXPECT_EQ(number_text(-1234567), "-1,234,567");
  EXPECT_EQ(number_text(0), "0");
}

TEST(RangeText, BothBoundsAsMeasuredNumbers) {
  EXPECT_EQ(range_text(9.12345, 10.5), "9.123-10.5");
  EXPECT_EQ(range_text(9999.4, 12345.6), "9999-12,346");
}

TEST(IntervalText, TwoDecimalsWholeFromOneHundredAndADashWithoutOne) {
  EXPECT_EQ(interval_text(Interval{0.954, 1.083}), "0.95-1.08");
  EXPECT_EQ(interval_text(Interval{99.5, 1234.4}), "99.50-1,234");
  EXPECT_EQ(interval_text(std::nullopt), "-");
}

TEST(LoadLabel, KindGpusAndARateOnlyWhereItIsNotTheFullOne) {
  EXPECT_EQ(load_label("write", 1, parse_load_rate("1")), "write x1");
  EXPECT_EQ(load_label("write", 1, parse_load_rate("100%")), "write x1");  // the full rate, by value
  EXPECT_EQ(load_label("copy-d2h", 2, parse_load_rate("50%")), "copy-d2h x2 @50%");
  EXPECT_EQ(load_label("read", 4, std::nullopt), "read x4");
  // brief: as the bare programs (one GPU) name their loads
  EXPECT_EQ(load_label("write", 1, parse_load_rate("1"), true), "write");
  EXPECT_EQ(load_label("write", 1, parse_load_rate("0.5"), true), "write @0.5");
  EXPECT_EQ(load_label("write", 2, std::nullopt, true), "write x2");
}

}  // namespace
}  // namespace hetprobe
