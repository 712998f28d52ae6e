#include "bench/halo/halo_layout.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "base/echo_text.hpp"
#include "base/errors.hpp"
#include "bench/core/sizes.hpp"

namespace hetprobe {
namespace {

// Every message size must fit a signed 64-bit count (MPI, ptrdiff_t), as in sizes.cpp.
constexpr std::uint64_t kMaxBytes = (std::uint64_t{1} << 63) - 1;

const char* kind_of(const std::array<int, 3>& d) {
  const int nonzero = (d[0] != 0) + (d[1] != 0) + (d[2] != 0);
  return nonzero == 1 ? "face" : nonzero == 2 ? "edge" : "vertex";
}

// The 26 directions in tag order: dz, dy, dx over -1..1, dx fastest, (0,0,0) skipped.
std::vector<std::array<int, 3>> directions() {
  std::vector<std::array<int, 3>> out;
  for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        if (dx != 0 || dy != 0 || dz != 0) out.push_back({dx, dy, dz});
  return out;
}

// Rank <-> coordinates as MPI_Cart_create: rank = (x*gy + y)*gz + z.
std::array<int, 3> coords_of(int rank, const std::array<int, 3>& g) {
  return {rank / (g[1] * g[2]), rank / g[2] % g[1], rank % g[2]};
}
int rank_at(const std::array<int, 3>& c, const std::array<int, 3>& d, int sign, const std::array<int, 3>& g) {
  std::array<int, 3> p{};
  for (int a = 0; a < 3; ++a) p[a] = ((c[a] + sign * d[a]) % g[a] + g[a]) % g[a];
  return (p[0] * g[1] + p[1]) * g[2] + p[2];
}

void check_rank(int rank, int ranks) {
  if (ranks < 1) throw usage_error("halo layout: " + std::to_string(ranks) + " ranks (need >= 1)");
  if (rank < 0 || rank >= ranks) {
    throw usage_error("halo layout: rank " + std::to_string(rank) + " outside [0, " + std::to_string(ranks) + ")");
  }
}

void check_cube(const HaloCube& c) {
  const std::string what = "halo cube " + std::to_string(c.cube) + ": ";
  if (c.cube < 1) throw usage_error(what + "the cube side must be >= 1 cell");
  if (c.cell_bytes < 1) throw usage_error(what + "cell bytes must be >= 1");
  for (int s : c.size_grid) {
    if (s < 1) throw usage_error(what + "sub-cube grid entry " + std::to_string(s) + " < 1");
    if (c.cube % s != 0) {
      throw usage_error("halo cube " + std::to_string(c.cube) + " is not divisible by sub-cube grid entry " +
                        std::to_string(s));
    }
    if (c.halo_width < 1 || c.halo_width >= c.cube / s) {
      throw usage_error(what + "halo width " + std::to_string(c.halo_width) + " must be >= 1 and < the sub-cube side " +
                        std::to_string(c.cube / s));
    }
  }
}

std::uint64_t message_bytes(const HaloCube& c, const std::array<int, 3>& d) {
  __extension__ typedef unsigned __int128 u128;  // exact product of up to four int factors
  u128 bytes = static_cast<u128>(c.cell_bytes);
  for (int a = 0; a < 3; ++a) {
    bytes *= static_cast<u128>(d[a] == 0 ? c.cube / c.size_grid[a] : c.halo_width);
  }
  if (bytes > kMaxBytes) {
    throw usage_error("halo cube " + std::to_string(c.cube) + ": a message of 2^63 bytes or more");
  }
  return static_cast<std::uint64_t>(bytes);
}

int parse_rank(const std::string& field, int ranks, const std::string& where) {
  int value = -1;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size() || value < 0 || value >= ranks) {
    throw usage_error(where + "rank \"" + echo_text(field) + "\" is not an integer in [0, " + std::to_string(ranks) +
                      ")");
  }
  return value;
}

// Every line of the file as a message: recv_from = SENDER, send_to = RECEIVER, index = tag.
std::vector<HaloMessage> read_layout_file(const std::string& path, int ranks) {
  // Not a directory, device or pipe: /dev/zero would be one endless line.
  std::error_code ec;
  const auto type = std::filesystem::status(path, ec).type();
  if (type != std::filesystem::file_type::not_found && type != std::filesystem::file_type::regular)
    throw usage_error("halo layout file \"" + path + "\": not a regular file");
  if (const auto bytes = std::filesystem::file_size(path, ec); !ec && bytes > kMaxLayoutFileBytes)
    throw usage_error("halo layout file \"" + path + "\": " + std::to_string(bytes) +
                      " bytes; a layout file is at most " + format_size(kMaxLayoutFileBytes));
  std::ifstream in(path);
  if (!in) throw usage_error("halo layout file \"" + path + "\": cannot open: " + std::strerror(errno));
  std::vector<HaloMessage> lines;
  std::vector<int> next_tag(static_cast<std::size_t>(ranks), 0), receives(static_cast<std::size_t>(ranks), 0);
  std::string text;
  for (int number = 1; std::getline(in, text); ++number) {
    const std::string where = path + ":" + std::to_string(number) + ": ";
    std::istringstream fields(text.substr(0, text.find('#')));
    std::vector<std::string> f;
    for (std::string word; fields >> word;) f.push_back(word);
    if (f.empty()) continue;
    if (f.size() != 3) {
      throw usage_error(where + "expected SENDER RECEIVER BYTES, got " + std::to_string(f.size()) + " fields");
    }
    HaloMessage m;
    m.kind = "message";
    m.recv_from = parse_rank(f[0], ranks, where);
    m.send_to = parse_rank(f[1], ranks, where);
    try {
      m.bytes = parse_size(f[2]);
    } catch (const Error& e) {
      throw usage_error(where + e.what());
    }
    m.index = next_tag[static_cast<std::size_t>(m.recv_from)]++;
    const int received = ++receives[static_cast<std::size_t>(m.send_to)];
    if (m.index >= kMaxMessagesPerRank || received > kMaxMessagesPerRank)
      throw usage_error(where + "rank " + std::to_string(m.index >= kMaxMessagesPerRank ? m.recv_from : m.send_to) +
                        (m.index >= kMaxMessagesPerRank ? " sends" : " receives") + " more than " +
                        std::to_string(kMaxMessagesPerRank) + " messages; a layout gives each rank at most " +
                        std::to_string(kMaxMessagesPerRank) + " to send and " + std::to_string(kMaxMessagesPerRank) +
                        " to receive (a cube's rank has 26)");
    lines.push_back(m);
  }
  if (in.bad()) throw usage_error("halo layout file \"" + path + "\": read error");
  if (lines.empty()) throw usage_error("halo layout file \"" + path + "\": no messages");
  return lines;
}

std::string join(const std::array<int, 3>& v, const char* sep) {
  return std::to_string(v[0]) + sep + std::to_string(v[1]) + sep + std::to_string(v[2]);
}

}  // namespace

Json HaloMessage::to_json() const {
  return Json{{"index", index}, {"direction", direction}, {"kind", kind},
              {"bytes", bytes}, {"send_to", send_to},     {"recv_from", recv_from}};
}

std::uint64_t HaloLayout::send_bytes() const {
  std::uint64_t sum = 0;
  for (const HaloMessage& m : sends) sum += m.bytes;
  return sum;
}

std::uint64_t HaloLayout::recv_bytes() const {
  std::uint64_t sum = 0;
  for (const HaloMessage& m : recvs) sum += m.bytes;
  return sum;
}

Json HaloLayout::to_json() const {
  Json s = Json::array(), r = Json::array();
  for (const HaloMessage& m : sends) s.push_back(m.to_json());
  for (const HaloMessage& m : recvs) r.push_back(m.to_json());
  return Json{{"source", source},
              {"cube", cube},
              {"size_grid", size_grid},
              {"rank_grid", rank_grid},
              {"peers", cube == 0 ? Json(nullptr) : Json(to_string(peers))},
              {"cell_bytes", cell_bytes},
              {"halo_width", halo_width},
              {"rank", rank},
              {"ranks", ranks},
              {"send_bytes", send_bytes()},
              {"recv_bytes", recv_bytes()},
              {"sends", std::move(s)},
              {"recvs", std::move(r)}};
}

HaloLayout cube_layout(const HaloCube& c, int rank, int ranks) {
  check_cube(c);
  check_rank(rank, ranks);
  if (c.peers == HaloPeers::pair && ranks % 2 != 0) {
    throw usage_error("halo peers pair: needs an even number of ranks, got " + std::to_string(ranks));
  }
  HaloLayout out;
  out.source = "cube " + std::to_string(c.cube) + " (" + join(c.size_grid, "x") + " sub-cubes, " +
               std::to_string(c.cell_bytes) + " B cells, halo " + std::to_string(c.halo_width) + ")";
  out.cube = c.cube;
  out.size_grid = c.size_grid;
  out.peers = c.peers;
  out.cell_bytes = c.cell_bytes;
  out.halo_width = c.halo_width;
  out.rank = rank;
  out.ranks = ranks;
  if (c.peers == HaloPeers::grid) out.rank_grid = balanced_grid(ranks);
  const std::array<int, 3> here = c.peers == HaloPeers::grid ? coords_of(rank, out.rank_grid) : std::array<int, 3>{};
  int index = 0;
  for (const std::array<int, 3>& d : directions()) {
    HaloMessage m;
    m.index = index++;
    m.direction = d;
    m.kind = kind_of(d);
    m.bytes = message_bytes(c, d);
    if (c.peers == HaloPeers::grid) {
      m.send_to = rank_at(here, d, +1, out.rank_grid);
      m.recv_from = rank_at(here, d, -1, out.rank_grid);
    } else {
      m.send_to = m.recv_from = rank ^ 1;
    }
    out.sends.push_back(m);
    // The neighbour at c - d sent its message of the same direction (same size, same tag) to us.
    m.send_to = rank;
    out.recvs.push_back(m);
  }
  return out;
}

HaloLayout file_layout(const std::string& path, int rank, int ranks) {
  check_rank(rank, ranks);
  const std::vector<HaloMessage> lines = read_layout_file(path, ranks);
  HaloLayout out;
  out.source = "file " + path;
  out.cell_bytes = out.halo_width = 0;
  out.rank = rank;
  out.ranks = ranks;
  for (const HaloMessage& m : lines) {
    if (m.recv_from == rank) out.sends.push_back(m);
    if (m.send_to == rank) out.recvs.push_back(m);
  }
  std::sort(out.recvs.begin(), out.recvs.end(), [](const HaloMessage& a, const HaloMessage& b) {
    return std::pair(a.index, a.recv_from) < std::pair(b.index, b.recv_from);
  });
  // A send's recv_from names the matching incoming message only where the match is unambiguous.
  for (HaloMessage& s : out.sends) {
    const auto same = [&](const HaloMessage& r) { return r.index == s.index && r.bytes == s.bytes; };
    const auto first = std::find_if(out.recvs.begin(), out.recvs.end(), same);
    s.recv_from = std::count_if(out.recvs.begin(), out.recvs.end(), same) == 1 ? first->recv_from : -1;
  }
  return out;
}

std::string layout_file_text(const std::vector<HaloLayout>& every_rank) {
  std::string text =
      "# hetprobe halo layout: one message per line, SENDER RECEIVER BYTES.\n"
      "# A message's MPI tag is its position among its sender's lines; '#' starts a comment.\n";
  if (!every_rank.empty()) {
    text += "# from " + every_rank.front().source + ", " + std::to_string(every_rank.size()) + " ranks\n";
  }
  for (const HaloLayout& l : every_rank) {
    text += "# rank " + std::to_string(l.rank) + ": " + std::to_string(l.sends.size()) + " messages, " +
            std::to_string(l.send_bytes()) + " bytes\n";
    for (const HaloMessage& m : l.sends) {
      text += std::to_string(l.rank) + " " + std::to_string(m.send_to) + " " + std::to_string(m.bytes) + "  # tag " +
              std::to_string(m.index);
      if (m.kind != "message") text += " " + m.kind + " " + join(m.direction, ",");
      text += "\n";
    }
  }
  return text;
}

std::array<int, 3> balanced_grid(int ranks) {
  if (ranks < 1) throw usage_error("process grid: " + std::to_string(ranks) + " ranks (need >= 1)");
  std::array<int, 3> best{ranks, 1, 1};
  // a >= b >= c, a*b*c = ranks: c <= cbrt(ranks) (64-bit, so c^3 cannot wrap), b <= sqrt(ranks / c).
  for (int c = 1; static_cast<long long>(c) * c * c <= ranks; ++c) {
    if (ranks % c != 0) continue;
    for (int b = c; b <= ranks / c / b; ++b) {
      if ((ranks / c) % b != 0) continue;
      const int a = ranks / c / b;
      const bool tighter = a - c < best[0] - best[2] || (a - c == best[0] - best[2] && a < best[0]);
      if (tighter) best = {a, b, c};
    }
  }
  return best;
}

}  // namespace hetprobe
