#include "bench/cli/error_record.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>

#include "bench/core/results.hpp"

namespace hetprobe::cli {

void record_error(ErrorKind kind, const std::string& message, int rank, const std::string& host) noexcept {
  const char* path = std::getenv(kErrorFileVariable);
  if (path == nullptr || *path == '\0') return;
  try {
    const std::string line = Json{{"kind", to_string(kind)},
                                  {"exit_code", exit_code_for(kind)},
                                  {"message", message},
                                  {"rank", rank < 0 ? Json(nullptr) : Json(rank)},
                                  {"host", host.empty() ? Json(nullptr) : Json(host)}}
                                 .dump(-1, ' ', false, Json::error_handler_t::replace) +
                             "\n";
    const int fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return;
    (void)!::write(fd, line.data(), line.size());
    ::close(fd);
  } catch (...) {  // the log already has the message
  }
}

}  // namespace hetprobe::cli
