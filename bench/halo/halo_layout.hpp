// Halo-exchange message layouts: which messages one rank sends and receives (paper 002 Sec. 5,
// Table 2; thesis 003 Sec. 2.5). Pure logic, no MPI, so every layout is unit-testable.
//
// Cube layouts reproduce Comb's 3D 27-point stencil exchange: a cube of `cube`^3 cells is cut
// into size_grid sub-cubes; each rank sends its sub-cube's 26 halo regions (6 faces, 12 edges,
// 8 vertices), `halo_width` cells thick, `cell_bytes` per cell. Directions d in {-1,0,1}^3 \ {0}
// are numbered by iterating dz, dy, dx over -1..1 (dx fastest), skipping (0,0,0); that number is
// the message's index and its MPI tag. bytes(d) = prod_a (d_a == 0 ? cube/size_grid[a] :
// halo_width) * cell_bytes, so the defaults (200^3, 4x4x4, 24 B, halo 1) give 60000 B faces,
// 1200 B edges and 24 B vertices. The sizes come from size_grid, the peers from the ranks: the
// paper's down-scaled 2-GPU run keeps the 64-rank sizes but sends everything to the other rank.
//
// Peers: `grid` places the ranks on a periodic process grid (balanced_grid, row-major with the
// last axis fastest as MPI_Cart_create); the message in direction d goes to (c + d) mod grid and
// the incoming message with the same tag comes from (c - d) mod grid. Self-messages are allowed.
// `pair` sends every message to rank ^ 1 and receives every tag from it.
//
// Layout files (the paper extracted Comb's configuration into a text file): one message per line
// "SENDER RECEIVER BYTES", BYTES in any unit parse_size accepts ("60000", "1KiB", "4KB"); '#'
// starts a comment; blank lines are ignored. A message's tag is its position among its SENDER's
// lines. layout_file_text() writes this format, so a cube layout can be dumped, edited, read back.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/enum_table.hpp"
#include "bench/core/results.hpp"

namespace hetprobe {

// grid: periodic 3D process grid over the ranks; pair: rank r <-> r^1 (all messages to the other).
enum class HaloPeers { grid, pair };
inline constexpr EnumTable<HaloPeers, 2> kHaloPeersNames{"halo peers",
                                                         {{{HaloPeers::grid, "grid"}, {HaloPeers::pair, "pair"}}}};

inline const char* to_string(HaloPeers peers) { return kHaloPeersNames.name(peers); }
// "grid" | "pair"; throws a usage Error otherwise.
inline HaloPeers parse_halo_peers(std::string_view text) { return kHaloPeersNames.parse(text); }

struct HaloMessage {
  int index = 0;                   // 0-based position in the sender's send list; also the MPI tag
  std::array<int, 3> direction{};  // cube layouts: neighbour offset {dx,dy,dz}; files: {0,0,0}
  std::string kind;                // "face" | "edge" | "vertex" (cube) or "message" (file)
  std::uint64_t bytes = 0;
  int send_to = -1;    // rank this message goes to
  int recv_from = -1;  // rank the matching incoming message (same tag, same size) comes from; in
                       // files -1 unless exactly one incoming message has this tag and size
  Json to_json() const;
};

struct HaloLayout {
  std::string source;                   // "cube 200 (4x4x4 sub-cubes, 24 B cells, halo 1)", "file x.txt"
  int cube = 0;                         // cells per side of the global cube; 0 for files
  std::array<int, 3> size_grid{};       // sub-cube decomposition the sizes come from; {0,0,0} for files
  std::array<int, 3> rank_grid{};       // process grid the peers come from (grid peers); else {0,0,0}
  HaloPeers peers = HaloPeers::grid;    // meaningless for files (written as null in JSON)
  int cell_bytes = 24, halo_width = 1;  // 0 for files
  int rank = 0, ranks = 1;
  std::vector<HaloMessage> sends;  // what this rank sends, in index order
  // What this rank receives: one entry per incoming message, with the sender's index (= tag) and
  // bytes, recv_from = sender, send_to = this rank; sorted by (tag, sender).
  std::vector<HaloMessage> recvs;

  std::uint64_t send_bytes() const;  // sum over sends
  std::uint64_t recv_bytes() const;  // sum over recvs
  // Every field, messages as arrays of objects, plus send_bytes and recv_bytes.
  Json to_json() const;
};

struct HaloCube {
  int cube = 200;                         // cells per side
  std::array<int, 3> size_grid{4, 4, 4};  // sub-cubes per axis (64 ranks in the paper)
  int cell_bytes = 24;                    // bytes per cell
  int halo_width = 1;                     // halo thickness, cells
  HaloPeers peers = HaloPeers::grid;
};

// The layout of `rank` of `ranks`. Usage errors: cube < 1, a size_grid entry < 1 or not dividing
// the cube, halo_width < 1 or >= the sub-cube side, cell_bytes < 1, ranks < 1, rank outside
// [0, ranks), an odd number of ranks with pair peers, a message of 2^63 bytes or more.
HaloLayout cube_layout(const HaloCube& c, int rank, int ranks);

// A layout file's bounds, checked as it is read, before anything runs: past them a run takes
// minutes and gigabytes per rank (each message has its buffers, flags and GPU blocks), and MPI
// guarantees tags only up to 32767.
inline constexpr std::uint64_t kMaxLayoutFileBytes = 16ull << 20;
inline constexpr int kMaxMessagesPerRank = 1024;  // to send, and to receive

// The layout of `rank` of `ranks` from a layout file; every rank parses the whole file. Usage
// errors name the file (and line): unreadable, larger than kMaxLayoutFileBytes, no messages at
// all, a line without exactly 3 fields, a rank not an integer in [0, ranks), BYTES 0 or not a
// size, a rank sending or receiving more than kMaxMessagesPerRank. A rank without lines of its
// own just sends nothing.
HaloLayout file_layout(const std::string& path, int rank, int ranks);

// The layout file for all ranks (every_rank[i] is any rank's layout; each one's sends are written
// in index order), with a header comment and each line's tag (and kind, direction) as a comment.
std::string layout_file_text(const std::vector<HaloLayout>& every_rank);

// 3 factors of `ranks`, non-increasing, product = ranks, as balanced as possible (smallest
// largest-minus-smallest, ties to the smaller largest factor), as MPI_Dims_create(ranks, 3, ...)
// gives: 2 -> {2,1,1}, 8 -> {2,2,2}, 12 -> {3,2,2}, 64 -> {4,4,4}. Usage error for ranks < 1.
std::array<int, 3> balanced_grid(int ranks);

}  // namespace hetprobe
