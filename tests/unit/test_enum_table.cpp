// One table per enum: names round trip, lists, "all", repeats, unknown names
// and empty items, for every table the tool has.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "base/enum_table.hpp"
#include "bench/core/table.hpp"
#include "bench/halo/halo.hpp"
#include "bench/halo/halo_layout.hpp"
#include "bench/interference/interference.hpp"
#include "bench/interference/layout.hpp"
#include "bench/notify/notify.hpp"
#include "expect_usage_error.hpp"
#include "probes/device/device_names.hpp"
#include "probes/load/load_names.hpp"

namespace hetprobe {
namespace {

// Every value has its own name; every name a user may give parses back to its
// value; the valid names are exactly those; "all" is the listed ones in order.
template <class E, std::size_t N>
void expect_consistent(const EnumTable<E, N>& table) {
  SCOPED_TRACE(table.what);
  std::set<std::string> names;
  std::vector<E> listed;
  std::string valid;
  for (const EnumName<E>& n : table.names) {
    EXPECT_STREQ(table.name(n.value), n.name);
    EXPECT_TRUE(names.insert(n.name).second) << "name given twice: " << n.name;
    if (n.use == EnumUse::internal) {
      expect_usage_error([&] { table.parse(n.name); }, std::string("unknown ") + table.what);
      continue;
    }
    EXPECT_EQ(table.parse(n.name), n.value);
    EXPECT_EQ(table.parse_list(n.name), std::vector<E>{n.value});
    valid += (valid.empty() ? "" : ", ") + std::string(n.name);
    if (n.use == EnumUse::listed) listed.push_back(n.value);
  }
  EXPECT_EQ(table.valid_names(), valid);
  EXPECT_EQ(table.parse_list("all"), listed);
  EXPECT_EQ(table.all(), listed);
}

TEST(EnumTable, EveryTableRoundTrips) {
  expect_consistent(kAccessNames);
  expect_consistent(kMemoryOrderNames);
  expect_consistent(kFlagPlacementNames);
  expect_consistent(kHostCoherenceNames);
  expect_consistent(kLaunchMechanismNames);
  expect_consistent(kLoadKindNames);
  expect_consistent(kFlagSpacingNames);
  expect_consistent(kNotifyPartNames);
  expect_consistent(kHaloVariantNames);
  expect_consistent(kHaloSignalNames);
  expect_consistent(kHaloStagingNames);
  expect_consistent(kHaloPeersNames);
  expect_consistent(kHaloReceiveWaitNames);
  expect_consistent(kSendModeNames);
  expect_consistent(kWriterSideNames);
  expect_consistent(kPayloadWriterNames);
  expect_consistent(kLayoutNames);
  expect_consistent(kTableFormatNames);
}

// halo --timeline takes one value, and one of its values is named "all": it
// is never parsed as a list.
TEST(EnumTable, TimelineNamesParseOneValueEach) {
  for (const auto& n : kHaloTimelineNames.names) EXPECT_EQ(kHaloTimelineNames.parse(n.name), n.value) << n.name;
  EXPECT_EQ(kHaloTimelineNames.valid_names(), "all, median, none");
  expect_usage_error([] { kHaloTimelineNames.parse("some"); }, "unknown timeline 'some' (expected all, median, none)");
}

// The records' strings: a table must never rename what results files hold.
TEST(EnumTable, RecordNamesStayAsTheyWere) {
  EXPECT_STREQ(to_string(Access::stacked), "stacked");
  EXPECT_STREQ(to_string(MemoryOrder::volatile_access), "volatile");
  EXPECT_STREQ(to_string(MemoryOrder::acq_rel), "acqrel");
  EXPECT_STREQ(to_string(FlagPlacement::device), "device");
  EXPECT_STREQ(to_string(HostCoherence::default_kind), "default");
  EXPECT_STREQ(to_string(LaunchMechanism::launch_flag), "launch+pinned-flag");
  EXPECT_STREQ(to_string(LaunchMechanism::device_flag_memcpy), "memcpy-to-device-flag");
  EXPECT_STREQ(to_string(LoadKind::copy_d2h), "copy-d2h");
  EXPECT_STREQ(to_string(FlagSpacing::same_line), "same-line");
  EXPECT_STREQ(to_string(HaloVariant::notify_stacked), "notify-stacked");
  EXPECT_STREQ(to_string(HaloPeers::pair), "pair");
  EXPECT_STREQ(to_string(HaloReceiveWait::testany), "testany");
  EXPECT_STREQ(to_string(HaloTimeline::median), "median");
  EXPECT_STREQ(to_string(SendMode::isend), "isend");
  EXPECT_STREQ(to_string(PayloadWriter::cpu), "cpu");
  EXPECT_STREQ(to_string(Layout::P2AB), "P2AB");
  EXPECT_STREQ(to_string(ErrorKind::unsupported), "unsupported");
  EXPECT_STREQ(to_string(ErrorKind::interrupted), "interrupted");
}

TEST(EnumTable, ListsKeepTheirOrder) {
  EXPECT_EQ(kHaloVariantNames.parse_list("notify-stacked,baseline"),
            (std::vector<HaloVariant>{HaloVariant::notify_stacked, HaloVariant::baseline}));
  // halo --send all: isend first, as halo's tables and sweeps have always listed it.
  EXPECT_EQ(kSendModeNames.parse_list("all"), (std::vector<SendMode>{SendMode::isend, SendMode::send}));
  EXPECT_EQ(kNotifyPartNames.parse_list("all"),
            (std::vector<NotifyPart>{NotifyPart::handover, NotifyPart::overhead, NotifyPart::roundtrip,
                                     NotifyPart::mechanisms}));
  EXPECT_EQ(kNotifyPartNames.parse_list("handover"), (std::vector<NotifyPart>{NotifyPart::handover}));
}

TEST(EnumTable, ARepeatedValueIsAUsageError) {
  expect_usage_error([] { kHaloStagingNames.parse_list("memcpy,pinned,memcpy"); },
                     "halo staging 'memcpy' is listed twice");
  // The same value under another spelling is still a repeat.
  expect_usage_error([] { kLayoutNames.parse_list("PCB,pcb"); }, "layout 'pcb' is listed twice");
}

TEST(EnumTable, UnknownNamesListTheValidOnes) {
  expect_usage_error([] { kFlagSpacingNames.parse("far"); },
                     "unknown flag spacing 'far' (expected same-line, line, page)");
  expect_usage_error([] { kAccessNames.parse_list("stream,sideways"); },
                     "unknown access mode 'sideways' (expected stream, stacked or all)");
  // An internal value is neither offered nor accepted.
  expect_usage_error([] { kFlagPlacementNames.parse_list("device"); },
                     "unknown flag placement 'device' (expected pinned, managed or all)");
  // "all" is a list's word, not a value.
  expect_usage_error([] { kTableFormatNames.parse("all"); }, "unknown table format 'all'");
}

TEST(EnumTable, EmptyItemsAreUsageErrors) {
  for (const char* text : {"", ",", "read,", ",read", "read,,write"})
    expect_usage_error([&] { kLoadKindNames.parse_list(text); }, "load kind list '" + std::string(text) + "'");
}

TEST(EnumTable, NamedOnlyValuesParseButStayOutOfAll) {
  EXPECT_EQ(kLoadKindNames.parse_list("none"), std::vector<LoadKind>{LoadKind::none});
  const auto all = kLoadKindNames.parse_list("all");
  EXPECT_EQ(all.size(), 5u);
  EXPECT_EQ(std::count(all.begin(), all.end(), LoadKind::none), 0);
}

TEST(EnumTable, CaseIsIgnoredOnlyWhereTheTableSaysSo) {
  EXPECT_EQ(kLayoutNames.parse("p2ab"), Layout::P2AB);
  EXPECT_EQ(kLayoutNames.parse_list("ALL").size(), 5u);
  expect_usage_error([] { kSendModeNames.parse("ISEND"); }, "unknown send mode 'ISEND'");
}

}  // namespace
}  // namespace hetprobe
