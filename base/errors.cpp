#include "base/errors.hpp"

#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "base/enum_table.hpp"

namespace hetprobe {

namespace {
// Words for messages ("hetprobe: usage error: ..."), and the test reports'.
constexpr EnumTable<ErrorKind, 8> kErrorKindNames{"error kind",
                                                  {{{ErrorKind::usage, "usage"},
                                                    {ErrorKind::device, "device"},
                                                    {ErrorKind::timeout, "timeout"},
                                                    {ErrorKind::mpi, "mpi"},
                                                    {ErrorKind::io, "io"},
                                                    {ErrorKind::check, "check"},
                                                    {ErrorKind::interrupted, "interrupted"},
                                                    {ErrorKind::unsupported, "unsupported"}}}};
}  // namespace

const char* to_string(ErrorKind kind) { return kErrorKindNames.name(kind); }

std::vector<ErrorKind> every_error_kind() { return kErrorKindNames.all(); }

Error::Error(ErrorKind kind, const std::string& message, std::source_location where)
    : std::runtime_error(message),
      kind_(kind),
      where_(std::filesystem::path(where.file_name()).filename().string() + ":" + std::to_string(where.line())) {}

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
