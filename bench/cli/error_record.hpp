// Why a run failed, for the program that launched it: with HETPROBE_ERROR_FILE
// set, each process that reports an error also appends one JSON line to that
// file, {"kind", "exit_code", "message", "rank", "host"}, so a launcher (the
// Python package, a batch script) reads the kind and the message instead of
// searching the log's text. Without the variable nothing is written.
#pragma once

#include <string>

#include "base/errors.hpp"

namespace hetprobe::cli {

inline constexpr const char* kErrorFileVariable = "HETPROBE_ERROR_FILE";

// Appends the line (O_APPEND, one write: several ranks' lines stay whole).
// `rank` -1: not an MPI rank (before MPI starts, or a subcommand without it).
// Never throws: a failure to write it leaves the log's message as it was.
void record_error(ErrorKind kind, const std::string& message, int rank = -1, const std::string& host = "") noexcept;

}  // namespace hetprobe::cli
