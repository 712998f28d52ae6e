// Typed errors with their call site. Library code throws these; only main()
// and the Python module turn them into exit codes or Python exceptions.
#pragma once

#include <source_location>
#include <stdexcept>
#include <string>
#include <vector>

namespace hetprobe {

enum class ErrorKind {
  usage,        // bad input from the user: exit code 2, nothing written
  device,       // a backend call failed
  timeout,      // a bounded wait gave up
  mpi,          // an MPI call failed or the ranks disagree
  io,           // a file could not be read or written
  check,        // a probe's own verification failed
  interrupted,  // SIGINT/SIGTERM: finished points are kept, exit code 130
  unsupported,  // this backend or device cannot do what was asked: probes record it as skipped; exit code 2
};

const char* to_string(ErrorKind kind);
// Every kind, in the order above (for the Python module's table of kinds).
std::vector<ErrorKind> every_error_kind();

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message, std::source_location where = std::source_location::current());
  ErrorKind kind() const { return kind_; }
  // "file.cpp:42" of the throwing call, for diagnostics.
  const std::string& where() const { return where_; }

 private:
  ErrorKind kind_;
  std::string where_;
};

// The text users see: the message, and " [file.cpp:42]" of the throwing call
// only when debugging (HETPROBE_DEBUG=1 in the environment; the CLI's --debug
// sets it), since a user needs what went wrong and a developer also where.
std::string user_message(const Error& e);

// Exit code main() uses for an error of this kind (2 usage and unsupported, 130 interrupted, else 1).
int exit_code_for(ErrorKind kind);

inline Error unsupported(const std::string& message, std::source_location where = std::source_location::current()) {
  return Error(ErrorKind::unsupported, message, where);
}

inline Error usage_error(const std::string& message, std::source_location where = std::source_location::current()) {
  return Error(ErrorKind::usage, message, where);
}

}  // namespace hetprobe
