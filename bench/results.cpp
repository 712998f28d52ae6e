// JSON Lines results files: append-only writer and tail-tolerant reader.
#include "hetprobe/results.hpp"

#include "hetprobe/stats.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "hetprobe/errors.hpp"

namespace hetprobe {

namespace {

std::string describe(const std::filesystem::path& path, const char* what, int err) {
  return std::string(what) + " " + path.string() + ": " + std::strerror(err);
}

struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

// Whole file as bytes. Failing to open it (or it being a directory) is the
// user's bad path, so usage; failing mid-read is io.
std::string read_all(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw usage_error(describe(path, "cannot open results file", errno));
  const FdCloser closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode))
    throw usage_error(describe(path, "cannot read results file", EISDIR));
  std::string data;
  char buf[1 << 16];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) != 0;) {
    if (n > 0)
      data.append(buf, static_cast<std::size_t>(n));
    else if (errno != EINTR)
      throw Error(ErrorKind::io, describe(path, "cannot read results file", errno));
  }
  return data;
}

bool is_blank(std::string_view line) {
  return line.find_first_not_of(" \t\r") == std::string_view::npos;
}

struct Line {
  std::string_view text;  // without the '\n'
  std::size_t end;        // offset just past the line (and its '\n', if any)
  bool terminated;
};

// Splits on '\n'; unterminated bytes at the end become a last line with
// terminated == false.
std::vector<Line> split_lines(std::string_view data) {
  std::vector<Line> lines;
  for (std::size_t start = 0; start < data.size(); start = lines.back().end) {
    const std::size_t nl = data.find('\n', start);
    if (nl == std::string_view::npos)
      lines.push_back({data.substr(start), data.size(), false});
    else
      lines.push_back({data.substr(start, nl - start), nl + 1, true});
  }
  return lines;
}

}  // namespace

ResultsWriter::ResultsWriter(const std::filesystem::path& path) : path_(path) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw usage_error(describe(path, "cannot open results file", errno));
  // One writer per file: a second run (or ranks orphaned by a killed mpirun)
  // must not interleave its records with ours. The lock dies with the process.
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    ::close(fd_);
    fd_ = -1;
    throw usage_error(describe(path, "results file is being written by another process", err));
  }
}

ResultsWriter::ResultsWriter(ResultsWriter&& other) noexcept
    : path_(std::move(other.path_)), fd_(std::exchange(other.fd_, -1)) {}

ResultsWriter& ResultsWriter::operator=(ResultsWriter&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    path_ = std::move(other.path_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

ResultsWriter::~ResultsWriter() {
  if (fd_ >= 0) ::close(fd_);
}

// Only objects are accepted, so that everything written reads back. One
// write(2) for the whole line keeps it whole against a kill between records;
// the retry loop only runs after a short write (disk full, signal).
void ResultsWriter::write(const Json& record) {
  if (!record.is_object())
    throw Error(ErrorKind::io, "results record for " + path_.string() + " is not a JSON object");
  std::string line;
  try {
    line = record.dump() + '\n';
  } catch (const nlohmann::json::exception& e) {  // e.g. invalid UTF-8 in a string
    throw Error(ErrorKind::io, "cannot serialise record for " + path_.string() + ": " + e.what());
  }
  std::size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error(ErrorKind::io, describe(path_, "cannot write", n < 0 ? errno : EIO));
    done += static_cast<std::size_t>(n);
  }
}

// Lines are the bytes between '\n's. Unterminated bytes at the end are a
// record cut mid-write, never data, even if they happen to parse. A
// terminated line that does not parse is tolerated only as the last
// non-blank line; anywhere else the file is corrupt.
ResultsFile read_results(const std::filesystem::path& path) {
  const std::string data = read_all(path);
  const std::vector<Line> lines = split_lines(data);
  std::size_t last_nonblank = lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (!is_blank(lines[i].text)) last_nonblank = i;

  ResultsFile file;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const Line& line = lines[i];
    if (!line.terminated) {
      file.truncated_tail = true;
      break;
    }
    if (is_blank(line.text)) {
      file.valid_bytes = line.end;
      continue;
    }
    Json value = Json::parse(line.text.begin(), line.text.end(), nullptr,
                             /*allow_exceptions=*/false);
    if (value.is_discarded() && i == last_nonblank) {
      file.truncated_tail = true;
      break;
    }
    if (value.is_discarded() || !value.is_object())
      throw Error(ErrorKind::io, path.string() + ":" + std::to_string(i + 1) + ": " +
                                     (value.is_discarded() ? "invalid JSON" : "not a JSON object") +
                                     " in results file");
    file.records.push_back(std::move(value));
    file.valid_bytes = line.end;
  }
  return file;
}

// Refuses to grow the file: a size below valid_bytes means it changed since
// it was read, and resize_file would pad it with zero bytes.
void drop_truncated_tail(const std::filesystem::path& path, const ResultsFile& file) {
  if (!file.truncated_tail) return;
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size < file.valid_bytes) ec = std::make_error_code(std::errc::invalid_argument);
  if (!ec) std::filesystem::resize_file(path, file.valid_bytes, ec);
  if (ec)
    throw Error(ErrorKind::io,
                "cannot drop truncated tail of " + path.string() + ": " + ec.message());
}

Json summary_json(std::span<const double> values) {
  if (values.empty()) return nullptr;
  const Summary s = summarize(values);
  return Json{{"n", s.n},     {"min", s.min}, {"p10", s.p10},   {"median", s.median}, {"p90", s.p90},
              {"p99", s.p99}, {"max", s.max}, {"mean", s.mean}, {"stddev", s.stddev}};
}

Json raw_ticks_json(const std::string& unit, double ns_per_tick, std::span<const std::uint64_t> ticks) {
  return Json{{"unit", unit}, {"ns_per_tick", ns_per_tick},
              {"values", std::vector<std::uint64_t>(ticks.begin(), ticks.end())}};
}

}  // namespace hetprobe
