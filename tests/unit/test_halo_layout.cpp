// Unit tests for halo-exchange layouts: paper 002 Table 2 sizes, process-grid peers, layout files.
#include "bench/halo/halo_layout.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "base/errors.hpp"
#include "tests/unit/expect_usage_error.hpp"
#include "tests/unit/scratch_dir.hpp"

namespace hetprobe {
namespace {

namespace fs = std::filesystem;
using Dir = std::array<int, 3>;

HaloCube cube_of(int side, HaloPeers peers = HaloPeers::grid) {
  HaloCube c;
  c.cube = side;
  c.peers = peers;
  return c;
}

const HaloMessage& by_direction(const HaloLayout& l, const Dir& d) {
  for (const HaloMessage& m : l.sends)
    if (m.direction == d) return m;
  throw std::logic_error("no such direction");
}

TEST(HaloCube, Table2SizesAndTotals) {
  struct Row {
    int cube;
    std::uint64_t face, edge, vertex, total;
  };
  for (const Row& row :
       {Row{200, 60000, 1200, 24, 374592}, Row{400, 240000, 2400, 24, 1468992}, Row{800, 960000, 4800, 24, 5817792}}) {
    SCOPED_TRACE(row.cube);
    const HaloLayout l = cube_layout(cube_of(row.cube), 0, 64);
    ASSERT_EQ(l.sends.size(), 26u);
    int faces = 0, edges = 0, vertices = 0;
    for (const HaloMessage& m : l.sends) {
      const int nonzero = (m.direction[0] != 0) + (m.direction[1] != 0) + (m.direction[2] != 0);
      if (nonzero == 1) {
        ++faces;
        EXPECT_EQ(m.kind, "face");
        EXPECT_EQ(m.bytes, row.face);
      } else if (nonzero == 2) {
        ++edges;
        EXPECT_EQ(m.kind, "edge");
        EXPECT_EQ(m.bytes, row.edge);
      } else {
        ++vertices;
        EXPECT_EQ(m.kind, "vertex");
        EXPECT_EQ(m.bytes, row.vertex);
      }
    }
    EXPECT_EQ(faces, 6);
    EXPECT_EQ(edges, 12);
    EXPECT_EQ(vertices, 8);
    EXPECT_EQ(l.send_bytes(), row.total);
    EXPECT_EQ(l.recv_bytes(), row.total);
  }
  EXPECT_EQ(cube_layout(cube_of(200), 0, 64).source, "cube 200 (4x4x4 sub-cubes, 24 B cells, halo 1)");
}

TEST(HaloCube, DirectionOrderDxFastest) {
  const HaloLayout l = cube_layout(cube_of(200), 0, 1);
  for (int i = 0; i < 26; ++i) EXPECT_EQ(l.sends[static_cast<std::size_t>(i)].index, i);
  EXPECT_EQ(l.sends[0].direction, (Dir{-1, -1, -1}));
  EXPECT_EQ(l.sends[1].direction, (Dir{0, -1, -1}));
  EXPECT_EQ(l.sends[3].direction, (Dir{-1, 0, -1}));
  EXPECT_EQ(l.sends[4].direction, (Dir{0, 0, -1}));
  EXPECT_EQ(l.sends[4].kind, "face");
  EXPECT_EQ(l.sends[12].direction, (Dir{-1, 0, 0}));
  EXPECT_EQ(l.sends[13].direction, (Dir{1, 0, 0}));
  EXPECT_EQ(l.sends[25].direction, (Dir{1, 1, 1}));
  EXPECT_EQ(l.sends[25].kind, "vertex");
}

TEST(HaloCube, UnevenSubCubesWidthAndCells) {
  HaloCube c;
  c.cube = 24;
  c.size_grid = {2, 3, 4};  // sub-cube sides 12, 8, 6
  c.cell_bytes = 8;
  c.halo_width = 2;
  const HaloLayout l = cube_layout(c, 0, 1);
  EXPECT_EQ(by_direction(l, {1, 0, 0}).bytes, 2u * 8 * 6 * 8);  // x face: halo x side_y x side_z
  EXPECT_EQ(by_direction(l, {0, -1, 0}).bytes, 12u * 2 * 6 * 8);
  EXPECT_EQ(by_direction(l, {0, 0, 1}).bytes, 12u * 8 * 2 * 8);
  EXPECT_EQ(by_direction(l, {1, 0, -1}).bytes, 2u * 8 * 2 * 8);  // edge along y
  EXPECT_EQ(by_direction(l, {1, 1, 1}).bytes, 2u * 2 * 2 * 8);
}

TEST(HaloCube, BadCubes) {
  HaloCube c = cube_of(200);
  c.size_grid = {4, 3, 4};
  expect_usage_error([&] { cube_layout(c, 0, 1); }, "cube 200 is not divisible by sub-cube grid entry 3");
  c = cube_of(0);
  expect_usage_error([&] { cube_layout(c, 0, 1); }, ">= 1 cell");
  c = cube_of(200);
  c.halo_width = 0;
  expect_usage_error([&] { cube_layout(c, 0, 1); }, "halo width 0");
  c.halo_width = 50;
  expect_usage_error([&] { cube_layout(c, 0, 1); }, "sub-cube side 50");
  c = cube_of(200);
  c.cell_bytes = 0;
  expect_usage_error([&] { cube_layout(c, 0, 1); }, "cell bytes");
  c = cube_of(200);
  c.size_grid = {0, 4, 4};
  expect_usage_error([&] { cube_layout(c, 0, 1); }, "entry 0");
  expect_usage_error([&] { cube_layout(cube_of(200), 2, 2); }, "rank 2 outside [0, 2)");
  expect_usage_error([&] { cube_layout(cube_of(200), 0, 0); }, "0 ranks");
  expect_usage_error([&] { cube_layout(cube_of(200, HaloPeers::pair), 0, 3); }, "even number of ranks");
  c = cube_of(2'000'000'000);
  c.size_grid = {1, 1, 1};
  expect_usage_error([&] { cube_layout(c, 0, 1); }, "2^63");
}

TEST(HaloPeers, Parse) {
  EXPECT_EQ(parse_halo_peers("grid"), HaloPeers::grid);
  EXPECT_EQ(parse_halo_peers("pair"), HaloPeers::pair);
  EXPECT_STREQ(to_string(HaloPeers::pair), "pair");
  expect_usage_error([] { parse_halo_peers("ring"); }, "unknown halo peers 'ring' (expected grid, pair)");
}

TEST(HaloGrid, BalancedLikeDimsCreate) {
  const std::vector<std::pair<int, Dir>> cases{{1, {1, 1, 1}},  {2, {2, 1, 1}},   {3, {3, 1, 1}},    {4, {2, 2, 1}},
                                               {6, {3, 2, 1}},  {7, {7, 1, 1}},   {8, {2, 2, 2}},    {12, {3, 2, 2}},
                                               {16, {4, 2, 2}}, {24, {4, 3, 2}},  {27, {3, 3, 3}},   {32, {4, 4, 2}},
                                               {64, {4, 4, 4}}, {100, {5, 5, 4}}, {1024, {16, 8, 8}}};
  for (const auto& [ranks, grid] : cases) EXPECT_EQ(balanced_grid(ranks), grid) << ranks;
  expect_usage_error([] { balanced_grid(0); }, "0 ranks");
}

TEST(HaloGrid, NeighboursOnCartesianGrid) {
  // 64 ranks on 4x4x4, rank = (x*4 + y)*4 + z; rank 0 is at (0,0,0).
  const HaloLayout l = cube_layout(cube_of(200), 0, 64);
  EXPECT_EQ(l.rank_grid, (Dir{4, 4, 4}));
  EXPECT_EQ(by_direction(l, {1, 0, 0}).send_to, 16);
  EXPECT_EQ(by_direction(l, {1, 0, 0}).recv_from, 48);  // (3,0,0) sent its +x face to us
  EXPECT_EQ(by_direction(l, {0, 1, 0}).send_to, 4);
  EXPECT_EQ(by_direction(l, {0, 0, 1}).send_to, 1);
  EXPECT_EQ(by_direction(l, {0, 0, -1}).send_to, 3);
  EXPECT_EQ(by_direction(l, {-1, -1, -1}).send_to, 63);
  EXPECT_EQ(by_direction(l, {-1, -1, -1}).recv_from, 21);
  // 12 ranks on 3x2x2: rank 7 = (1,1,1).
  const HaloLayout m = cube_layout(cube_of(200), 7, 12);
  EXPECT_EQ(by_direction(m, {1, 0, 0}).send_to, 11);
  EXPECT_EQ(by_direction(m, {1, 0, 0}).recv_from, 3);
  EXPECT_EQ(by_direction(m, {0, 1, 1}).send_to, 4);  // (1,0,0): both short axes wrap
}

// Every send is received exactly once, by its target, with its tag and size.
void expect_consistent(const HaloCube& c, int ranks) {
  SCOPED_TRACE(ranks);
  std::vector<HaloLayout> all;
  for (int r = 0; r < ranks; ++r) all.push_back(cube_layout(c, r, ranks));
  for (const HaloLayout& l : all) {
    ASSERT_EQ(l.recvs.size(), 26u);
    for (std::size_t i = 0; i < 26; ++i) {
      const HaloMessage& s = l.sends[i];
      const HaloMessage& r = l.recvs[i];
      EXPECT_EQ(r.index, s.index);
      EXPECT_EQ(r.bytes, s.bytes);
      EXPECT_EQ(r.send_to, l.rank);
      EXPECT_EQ(r.recv_from, s.recv_from);
      // The receiver expects this tag from us, and we sent it there.
      EXPECT_EQ(all[static_cast<std::size_t>(s.send_to)].recvs[i].recv_from, l.rank);
      EXPECT_EQ(all[static_cast<std::size_t>(r.recv_from)].sends[i].send_to, l.rank);
    }
  }
}

TEST(HaloGrid, ConsistentForAnyRankCount) {
  for (int ranks : {1, 2, 3, 8, 12, 64}) expect_consistent(cube_of(200), ranks);
  for (int ranks : {2, 4}) expect_consistent(cube_of(200, HaloPeers::pair), ranks);
}

TEST(HaloGrid, OneRankSendsToItself) {
  const HaloLayout l = cube_layout(cube_of(200), 0, 1);
  for (const HaloMessage& m : l.sends) EXPECT_TRUE(m.send_to == 0 && m.recv_from == 0);
}

TEST(HaloPair, EverythingToTheOtherRank) {
  const HaloLayout l = cube_layout(cube_of(400, HaloPeers::pair), 3, 4);
  EXPECT_EQ(l.rank_grid, (Dir{0, 0, 0}));
  EXPECT_EQ(l.send_bytes(), 1468992u);  // the 64-rank sizes, down-scaled to pairs
  for (const HaloMessage& m : l.sends) EXPECT_TRUE(m.send_to == 2 && m.recv_from == 2);
  for (const HaloMessage& m : l.recvs) EXPECT_TRUE(m.send_to == 3 && m.recv_from == 2);
}

TEST(HaloLayoutJson, EveryField) {
  const Json j = cube_layout(cube_of(200, HaloPeers::pair), 1, 2).to_json();
  EXPECT_EQ(j["source"], "cube 200 (4x4x4 sub-cubes, 24 B cells, halo 1)");
  EXPECT_EQ(j["cube"], 200);
  EXPECT_EQ(j["size_grid"], Json({4, 4, 4}));
  EXPECT_EQ(j["rank_grid"], Json({0, 0, 0}));
  EXPECT_EQ(j["peers"], "pair");
  EXPECT_EQ(j["cell_bytes"], 24);
  EXPECT_EQ(j["halo_width"], 1);
  EXPECT_EQ(j["rank"], 1);
  EXPECT_EQ(j["ranks"], 2);
  EXPECT_EQ(j["send_bytes"], 374592);
  ASSERT_EQ(j["sends"].size(), 26u);
  EXPECT_EQ(j["sends"][13], Json::parse(R"({"index":13,"direction":[1,0,0],"kind":"face",
                                            "bytes":60000,"send_to":0,"recv_from":0})"));
  EXPECT_EQ(j["recvs"][0]["send_to"], 1);
}

// Each test gets a fresh directory under the system temp dir, removed after.
class HaloFile : public ::testing::Test {
 protected:
  std::string write(const std::string& text, const std::string& name = "halo.txt") const {
    const fs::path path = dir_ / name;
    std::ofstream(path) << text;
    return path.string();
  }
  ScratchDir scratch_{"hetprobe_halo"};
  const fs::path dir_ = scratch_.path();
};

TEST_F(HaloFile, SendsRecvsAndTags) {
  const std::string path = write(
      "# a comment\n"
      "0 1 60000\n"
      "\n"
      "  1 0   1.5KiB   # trailing comment\n"
      "0 2 4KB\n"
      "2 1 24\n"
      "2 0 4KB\n");
  const HaloLayout l0 = file_layout(path, 0, 3);
  EXPECT_EQ(l0.source, "file " + path);
  EXPECT_EQ(l0.cube, 0);
  ASSERT_EQ(l0.sends.size(), 2u);
  EXPECT_EQ(l0.sends[0].index, 0);
  EXPECT_EQ(l0.sends[0].send_to, 1);
  EXPECT_EQ(l0.sends[0].bytes, 60000u);
  EXPECT_EQ(l0.sends[0].kind, "message");
  EXPECT_EQ(l0.sends[0].direction, (Dir{0, 0, 0}));
  EXPECT_EQ(l0.sends[1].index, 1);
  EXPECT_EQ(l0.sends[1].bytes, 4000u);
  EXPECT_EQ(l0.sends[1].recv_from, 2);   // 2's tag 1 is the one incoming tag 1, also 4000 B
  EXPECT_EQ(l0.sends[0].recv_from, -1);  // tag 0 arrives from 1 with 1536 B, not 60000 B
  ASSERT_EQ(l0.recvs.size(), 2u);        // 1's tag 0 and 2's tag 1, by tag
  EXPECT_EQ(l0.recvs[0].recv_from, 1);
  EXPECT_EQ(l0.recvs[0].index, 0);
  EXPECT_EQ(l0.recvs[0].bytes, 1536u);
  EXPECT_EQ(l0.recvs[1].recv_from, 2);
  EXPECT_EQ(l0.recvs[1].index, 1);
  EXPECT_EQ(l0.recvs[1].bytes, 4000u);
  EXPECT_EQ(l0.recvs[1].send_to, 0);
  const HaloLayout l1 = file_layout(path, 1, 3);
  ASSERT_EQ(l1.recvs.size(), 2u);  // tag 0 from both 0 and 2: ordered by sender
  EXPECT_EQ(l1.recvs[0].recv_from, 0);
  EXPECT_EQ(l1.recvs[1].recv_from, 2);
  EXPECT_EQ(l1.sends[0].recv_from, -1);           // neither incoming tag 0 has its 1536 B
  const HaloLayout l3 = file_layout(path, 3, 4);  // a rank the file does not mention
  EXPECT_TRUE(l3.sends.empty() && l3.recvs.empty());
  EXPECT_TRUE(l3.to_json()["peers"].is_null());
  const std::string twice = write("0 1 8\n1 0 8\n2 0 8\n", "twice.txt");
  EXPECT_EQ(file_layout(twice, 0, 3).sends[0].recv_from, -1);  // tag 0, 8 B from both 1 and 2
  EXPECT_EQ(file_layout(twice, 1, 3).sends[0].recv_from, 0);
}

TEST_F(HaloFile, ErrorsNameFileAndLine) {
  expect_usage_error([&] { file_layout((dir_ / "missing.txt").string(), 0, 2); }, "missing.txt");
  struct BadFile {
    const char *name, *text, *error;  // the error names the file, and the line where there is one
  };
  const BadFile bad_files[] = {
      {"two.txt", "0 1 8\n1 0\n", "two.txt:2: expected SENDER RECEIVER BYTES"},
      {"four.txt", "0 1 8 9\n", "four.txt:1:"},
      {"far.txt", "0 1 8\n# x\n0 2 8\n", "far.txt:3: rank \"2\""},
      {"neg.txt", "-1 0 8\n", "neg.txt:1: rank \"-1\""},
      {"zero.txt", "0 1 0\n", "zero.txt:1: size \"0\""},
      {"junk.txt", "0 1 lots\n", "junk.txt:1: size \"lots\""},
      {"empty.txt", "# nothing\n\n", "no messages"},
  };
  for (const BadFile& bad : bad_files) {
    const std::string path = write(bad.text, bad.name);
    expect_usage_error([&] { file_layout(path, 0, 2); }, bad.error);
  }
  expect_usage_error([&] { file_layout((dir_ / "two.txt").string(), 2, 2); }, "rank 2 outside");
  // Not files of lines: a directory, and a device that would be one endless line.
  expect_usage_error([&] { file_layout(dir_.string(), 0, 2); }, "not a regular file");
  expect_usage_error([&] { file_layout("/dev/zero", 0, 2); }, "\"/dev/zero\": not a regular file");
}

TEST_F(HaloFile, CubeLayoutRoundTrip) {
  for (const HaloCube& c : {cube_of(200), cube_of(800, HaloPeers::pair)}) {
    constexpr int kRanks = 8;
    std::vector<HaloLayout> all;
    for (int r = 0; r < kRanks; ++r) all.push_back(cube_layout(c, r, kRanks));
    const std::string text = layout_file_text(all);
    EXPECT_EQ(text.rfind("# hetprobe halo layout", 0), 0u);
    const std::string path = write(text);
    for (int r = 0; r < kRanks; ++r) {
      SCOPED_TRACE(r);
      const HaloLayout f = file_layout(path, r, kRanks);
      HaloLayout& want = all[static_cast<std::size_t>(r)];
      for (auto* list : {&want.sends, &want.recvs}) {
        for (HaloMessage& m : *list) m.kind = "message", m.direction = {0, 0, 0};
      }
      EXPECT_EQ(Json(f.to_json()["sends"]), Json(want.to_json()["sends"]));
      EXPECT_EQ(Json(f.to_json()["recvs"]), Json(want.to_json()["recvs"]));
    }
  }
}

}  // namespace
}  // namespace hetprobe
