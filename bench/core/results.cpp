// JSON Lines results files: append-only writer and tail-tolerant reader.
#include "bench/core/results.hpp"

#include "base/stats.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "base/errors.hpp"
#include "bench/core/gzip_text.hpp"
#include "bench/core/record_upgrade.hpp"

namespace hetprobe {

namespace {

std::string describe(const std::filesystem::path& path, const char* what, int err) {
  return std::string(what) + " " + path.string() + ": " + std::strerror(err);
}

struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

// What a file that is not a regular file is, for the message refusing it.
const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

[[noreturn]] void refuse_not_regular(const std::filesystem::path& path, mode_t mode) {
  throw usage_error("results file " + path.string() + " is " + kind_of(mode) +
                    ", not a regular file: results go to a regular file");
}

// Opens a regular file (or a symlink to one) and nothing else: a device is
// refused before it is opened (opening some has side effects), O_NONBLOCK
// keeps a FIFO from blocking the open, and fstat confirms what was opened.
// Failing to open it is the user's bad path, so usage.
int open_regular(const std::filesystem::path& path, int flags) {
  struct stat st{};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) refuse_not_regular(path, st.st_mode);
  const int fd = ::open(path.c_str(), flags | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, 0644);
  if (fd < 0) throw usage_error(describe(path, "cannot open results file", errno));
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    const mode_t mode = st.st_mode;
    ::close(fd);
    refuse_not_regular(path, mode);
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

// Bytes of an open descriptor from where it stands: all of them (refused past
// kMaxResultsTextBytes), or (when `first_line_only`) up to at least the first
// '\n', or kMaxRecordBytes without one (no results header is that long).

std::string read_fd(int fd, const std::filesystem::path& path, bool first_line_only) {
  std::string data;
  char buf[1 << 16];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw Error(ErrorKind::io, describe(path, "cannot read results file", errno));
    data.append(buf, static_cast<std::size_t>(n));
    if (first_line_only && (std::memchr(buf, '\n', static_cast<std::size_t>(n)) || data.size() >= kMaxRecordBytes))
      break;
    if (data.size() > kMaxResultsTextBytes)
      throw usage_error("results file " + path.string() + " passes " + std::to_string(kMaxResultsTextBytes >> 20) +
                        " MiB, the most a results file may hold: refused (split the run into several files)");
  }
  return data;
}

// Whole file as text: as written, or as gzip leaves it compressed.
std::string read_all(const std::filesystem::path& path) {
  const FdCloser closer{open_regular(path, O_RDONLY)};
  std::string data = read_fd(closer.fd, path, false);
  return is_gzip(data) ? gunzip(data, path, kMaxResultsTextBytes) : data;
}

bool is_blank(std::string_view line) { return line.find_first_not_of(" \t\r") == std::string_view::npos; }

struct Line {
  std::string_view text;  // without the '\n'
  std::size_t end;        // offset just past the line (and its '\n', if any)
  bool terminated;
};

// Splits on '\n'; unterminated bytes at the end become a last line with
// terminated == false. Refuses more than kMaxResultsLines lines, and a line
// longer than kMaxRecordBytes, naming `path`.
std::vector<Line> split_lines(std::string_view data, const std::filesystem::path& path) {
  if (static_cast<std::size_t>(std::count(data.begin(), data.end(), '\n')) > kMaxResultsLines)
    throw usage_error(path.string() + ": more than " + std::to_string(kMaxResultsLines) +
                      " lines, the most a results file may hold: refused (split the run into several files)");
  std::vector<Line> lines;
  for (std::size_t start = 0; start < data.size(); start = lines.back().end) {
    const std::size_t nl = data.find('\n', start);
    if ((nl == std::string_view::npos ? data.size() : nl) - start > kMaxRecordBytes)
      throw usage_error(path.string() + ":" + std::to_string(lines.size() + 1) + ": a line longer than " +
                        std::to_string(kMaxRecordBytes >> 20) + " MiB, the most one record may hold: refused");
    if (nl == std::string_view::npos) lines.push_back({data.substr(start), data.size(), false});
    else lines.push_back({data.substr(start, nl - start), nl + 1, true});
  }
  return lines;
}

}  // namespace

ResultsWriter::ResultsWriter(const std::filesystem::path& path) : path_(path) {
  fd_ = open_regular(path, O_WRONLY | O_APPEND | O_CREAT);
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

std::uint64_t ResultsWriter::size() const {
  struct stat st{};
  if (::fstat(fd_, &st) != 0) throw Error(ErrorKind::io, describe(path_, "cannot stat results file", errno));
  return static_cast<std::uint64_t>(st.st_size);
}

// Only objects are accepted, so that everything written reads back. One
// write(2) for the whole line keeps it whole against a kill between records;
// the retry loop only runs after a short write (disk full, signal).
void ResultsWriter::write(const Json& record) {
  if (!record.is_object()) throw Error(ErrorKind::io, "results record for " + path_.string() + " is not a JSON object");
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
ResultsFile read_results(const std::filesystem::path& path) { return parse_results(path, read_all(path)); }

ResultsFile parse_results(const std::filesystem::path& path, const std::string& data) {
  const std::vector<Line> lines = split_lines(data, path);
  std::size_t last_nonblank = lines.size();
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (!is_blank(lines[i].text)) last_nonblank = i;

  ResultsFile file;
  file.path = path;
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
      throw usage_error(path.string() + ":" + std::to_string(i + 1) + ": " +
                        (value.is_discarded() ? "invalid JSON" : "not a JSON object") + " in results file");
    if (const auto kind = value.find("record"); kind != value.end() && *kind == "header")
      if (const std::string problem = schema_problem(value); !problem.empty())
        throw usage_error(path.string() + ":" + std::to_string(i + 1) + ": " + problem);
    file.records.push_back(std::move(value));
    file.lines.push_back(i + 1);
    file.valid_bytes = line.end;
  }
  upgrade_records(file.records);  // older schema versions read in the current form
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
  if (ec) throw Error(ErrorKind::io, "cannot drop truncated tail of " + path.string() + ": " + ec.message());
}

namespace {

// NAME of a file NAME.jsonl or NAME.jsonl.gz (no folder); nothing for any other name.
std::optional<std::string> results_name(const std::filesystem::path& path) {
  const std::string name = path.filename().string();
  for (const std::string_view suffix : {".jsonl.gz", ".jsonl"})
    if (name.size() > suffix.size() && name.ends_with(suffix)) return name.substr(0, name.size() - suffix.size());
  return std::nullopt;
}

}  // namespace

bool is_directory(const std::filesystem::path& path) {
  struct stat st{};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

bool is_results_file_name(const std::filesystem::path& path) { return results_name(path).has_value(); }

std::string results_stem(const std::filesystem::path& path) {
  return results_name(path).value_or(path.stem().string());
}

std::string ResultsFile::place(std::size_t i) const {
  if (i >= lines.size()) return path.string() + ", record " + std::to_string(i + 1);  // not read from a file
  return path.string() + ":" + std::to_string(lines[i]);
}

std::string ResultsFile::probe() const {
  if (records.empty()) return "";
  const Json& h = records.front();
  const auto record = h.find("record"), probe = h.find("probe");
  if (record == h.end() || *record != "header" || probe == h.end() || !probe->is_string()) return "";
  return probe->get<std::string>();
}

namespace {

// The first line of a file's bytes, as stored (or kMaxRecordBytes without one).
std::string first_line_bytes(const std::filesystem::path& path) {
  const FdCloser closer{open_regular(path, O_RDONLY)};
  return read_fd(closer.fd, path, true);
}

// The probe a results file's first line (its header) names: "" when that line
// is not a complete results header.
std::string header_probe(const std::string& data) {
  const std::size_t nl = data.find('\n');
  if (nl == std::string::npos) return "";
  const Json h = Json::parse(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(nl), nullptr, false);
  if (!h.is_object()) return "";
  const auto record = h.find("record"), probe = h.find("probe");
  if (record == h.end() || *record != "header" || probe == h.end() || !probe->is_string()) return "";
  return probe->get<std::string>();
}

// The rules for a file that already holds bytes: a results header of this
// probe, and --resume to continue it.
void check_existing(const std::string& probe, const std::filesystem::path& path, Resume resume) {
  const std::string first = first_line_bytes(path), name = path.string();
  if (is_gzip(first))
    throw usage_error("--out " + name +
                      " is gzip-compressed: hetprobe appends plain JSON Lines; gunzip it to continue it, or choose "
                      "another --out");
  const std::string held = header_probe(first);
  if (held.empty())
    throw usage_error("--out " + name +
                      " is not a hetprobe results file (its first line is not a complete results "
                      "header): choose another --out");
  if (held != probe)
    throw usage_error("--out " + name + " holds " + held + " results, not " + probe + " results: choose another --out");
  if (resume == Resume::unavailable) throw usage_error("--out " + name + " already has results: choose another --out");
  if (resume == Resume::off)
    throw usage_error("--out " + name + " already has results: add --resume to continue it, or choose another --out");
}

}  // namespace

bool check_results_target(const std::string& probe, const std::filesystem::path& path, Resume resume) {
  if (path.extension() == ".gz")
    throw usage_error("--out " + path.string() +
                      ": hetprobe writes plain JSON Lines, not gzip: name it *.jsonl, and compress it after the run");
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) throw usage_error(describe(path, "--out: cannot open results file", errno));
    const std::filesystem::path dir = path.parent_path().empty() ? "." : path.parent_path();
    struct stat d{};
    if (::stat(dir.c_str(), &d) != 0 || !S_ISDIR(d.st_mode))
      throw usage_error("--out " + path.string() + ": cannot open results file: directory " + dir.string() +
                        " does not exist (create it first)");
    return false;
  }
  if (!S_ISREG(st.st_mode))
    throw usage_error("--out " + path.string() + " is " + kind_of(st.st_mode) +
                      ", not a regular file: --out names a results file (JSON Lines)");
  if (st.st_size == 0) return false;
  check_existing(probe, path, resume);
  return true;
}

OpenedResults open_results_for(const std::string& probe, const std::filesystem::path& path, Resume resume) {
  check_results_target(probe, path, resume);
  std::optional<ResultsWriter> writer;
  try {
    writer.emplace(path);  // locks the file before it is read
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::usage) throw;
    throw usage_error(std::string("--out: ") + e.what());
  }
  OpenedResults out{std::move(*writer), {}};
  out.existing.path = path;
  if (out.writer.size() == 0) return out;
  check_existing(probe, path, resume);  // again, under the lock: it may have changed since
  out.existing = read_results(path);
  return out;
}

Json summary_json(std::span<const double> values) {
  if (values.empty()) return nullptr;
  return summary_json(summarize(values));
}

Json summary_json(const Summary& s) {
  return Json{{"n", s.n},     {"min", s.min}, {"p10", s.p10},   {"median", s.median}, {"p90", s.p90},
              {"p99", s.p99}, {"max", s.max}, {"mean", s.mean}, {"stddev", s.stddev}};
}

Json raw_ticks_json(const std::string& unit, double ns_per_tick, std::span<const std::uint64_t> ticks) {
  return Json{{"unit", unit},
              {"ns_per_tick", ns_per_tick},
              {"values", std::vector<std::uint64_t>(ticks.begin(), ticks.end())}};
}

}  // namespace hetprobe
