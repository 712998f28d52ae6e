#include "bench/core/errors.hpp"

#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace hetprobe {

const char* to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::usage: return "usage";
    case ErrorKind::device: return "device";
    case ErrorKind::timeout: return "timeout";
    case ErrorKind::mpi: return "mpi";
    case ErrorKind::io: return "io";
    case ErrorKind::check: return "check";
    case ErrorKind::interrupted: return "interrupted";
    case ErrorKind::unsupported: return "unsupported";
  }
  return "unknown";
}

Error::Error(ErrorKind kind, const std::string& message, std::source_location where)
    : std::runtime_error(message),
      kind_(kind),
      where_(std::filesystem::path(where.file_name()).filename().string() + ":" +
             std::to_string(where.line())) {}

std::string user_message(const Error& e) {
  const char* debug = std::getenv("HETPROBE_DEBUG");
  const bool with_location = debug && *debug && std::strcmp(debug, "0") != 0;
  return with_location ? std::string(e.what()) + " [" + e.where() + "]" : std::string(e.what());
}

int exit_code_for(ErrorKind kind) {
  if (kind == ErrorKind::usage || kind == ErrorKind::unsupported) return 2;
  if (kind == ErrorKind::interrupted) return 130;
  return 1;
}

}  // namespace hetprobe
