// The helpers that hetprobe._core's parts share (bind_common.hpp).
#include "bind_common.hpp"

namespace py = pybind11;

namespace hetprobe {

const char* exception_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::usage: return "UsageError";
    case ErrorKind::device: return "DeviceError";
    case ErrorKind::timeout: return "ProbeTimeout";
    case ErrorKind::mpi: return "MPIError";
    case ErrorKind::io: return "ResultsFileError";
    case ErrorKind::check: return "CheckFailed";
    case ErrorKind::interrupted: return "Interrupted";
    case ErrorKind::unsupported: return "Unsupported";
  }
  return "HetprobeError";
}

py::object to_python(const Json& j) {
  return py::module_::import("json").attr("loads")(j.dump(-1, ' ', false, Json::error_handler_t::replace));
}

RunFiles read_run(const std::vector<std::string>& paths) {
  RunFiles files;
  for (const std::string& p : paths) files.push_back(read_results(p));
  return files;
}

// A missing launch would narrow the spread a check allows or hide the launch
// that is off: a file with no records or cut short is refused, never skipped.
RunFiles read_whole(const std::vector<std::string>& paths, const std::string& what) {
  RunFiles files = read_run(paths);
  for (const ResultsFile& f : files) {
    if (f.records.empty())
      throw usage_error(what + ": " + f.path.string() +
                        " holds no records (empty, cut or corrupt): the files of a run that is checked, and of its "
                        "baselines, must be whole; remove it or give another run");
    if (f.truncated_tail)
      throw usage_error(what + ": " + f.path.string() +
                        " ends in an incomplete or unparsable line (cut or corrupt): the files of a run that is "
                        "checked, and of its baselines, must be whole; remove it or give another run");
  }
  return files;
}

}  // namespace hetprobe
