#include "base/small_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace hetprobe {

namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "of an unknown kind";
}

void say(std::string* problem, const std::string& text) {
  if (problem != nullptr) *problem = text;
}

}  // namespace

std::string sysfs_root() {
  const char* root = std::getenv("HETPROBE_SYSFS_ROOT");
  return root != nullptr && *root != '\0' ? root : "/sys";
}

bool sysfs_root_overridden() { return sysfs_root() != "/sys"; }

std::optional<std::string> read_small_file(const std::filesystem::path& path, std::size_t max_bytes,
                                           std::string* problem) {
  // Checked before opening too: opening some devices does something.
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) {
    say(problem, errno == ENOENT ? "missing" : std::string("cannot be read: ") + std::strerror(errno));
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode)) {
    say(problem, std::string("is ") + kind_of(st.st_mode) + ", not a regular file");
    return std::nullopt;
  }
  // O_NONBLOCK: should the path have become a FIFO since, opening it returns
  // at once instead of waiting for a writer, and fstat refuses it.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    say(problem, std::string("cannot be opened: ") + std::strerror(errno));
    return std::nullopt;
  }
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    say(problem, "changed while it was read");
    ::close(fd);
    return std::nullopt;
  }
  std::string text(max_bytes, '\0');
  std::size_t done = 0;
  while (done < max_bytes) {
    const ssize_t n = ::read(fd, text.data() + done, max_bytes - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      say(problem, std::string("cannot be read: ") + std::strerror(errno));
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  ::close(fd);
  text.resize(done);
  return text;
}

std::optional<std::string> read_first_line(const std::filesystem::path& path, std::string* problem) {
  auto text = read_small_file(path, kSysfsAttributeBytes, problem);
  if (!text) return std::nullopt;
  text->resize(std::min(text->size(), text->find('\n')));
  while (!text->empty() && (text->back() == ' ' || text->back() == '\t' || text->back() == '\r')) text->pop_back();
  return text;
}

}  // namespace hetprobe
