#include "bench/core/mpi_transport.hpp"

#include <fcntl.h>
#include <mpi.h>
#include <sys/wait.h>
#include <unistd.h>  // environ, fork

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

#include "base/errors.hpp"
#include "base/text_list.hpp"
#include "bench/core/mpi_context.hpp"
#include "bench/core/mpi_cvars.hpp"

namespace hetprobe {

namespace {

struct Library {
  std::string name;     // "open-mpi", "mpich", "intel-mpi" or "other"
  std::string version;  // "4.1.4"; "" where unknown
  int major = 0;
};

// From MPI_Get_library_version (which MPI allows before MPI_Init).
Library library() {
  const std::string text = mpi_library_version();
  const auto word_after = [&](const std::string& marker) {
    const std::size_t at = text.find(marker);
    if (at == std::string::npos) return std::string();
    std::size_t start = text.find_first_not_of(" \t", at + marker.size());
    if (start == std::string::npos) return std::string();
    return text.substr(start, text.find_first_of(" ,\t\n", start) - start);
  };
  Library lib{"other", "", 0};
  if (text.starts_with("Open MPI")) lib = {"open-mpi", word_after("Open MPI v"), 0};
  else if (text.find("Intel(R) MPI") != std::string::npos) lib = {"intel-mpi", word_after("Library"), 0};
  else if (text.find("MPICH") != std::string::npos) lib = {"mpich", word_after("MPICH Version:"), 0};
  lib.major = std::atoi(lib.version.c_str());
  return lib;
}

// The Open MPI variable that chooses the single-copy mechanism, and its value for `mechanism`.
std::pair<std::string, std::string> single_copy_variable(const Library& lib, SingleCopy mechanism) {
  const std::string name = kSingleCopyNames.name(mechanism);
  if (lib.major >= 5) return {"smsc", mechanism == SingleCopy::none ? "^cma,xpmem,knem" : name};
  return {"btl_vader_single_copy_mechanism", name};
}

// Open MPI's components of `framework` still open (their version variables are
// kept): after MPI_Init, the ones selected (pml) or usable (btl).
std::vector<std::string> open_components(const ControlVariables& cv, const std::string& framework) {
  std::vector<std::string> out;
  const std::string prefix = framework + "_", suffix = "_major_version";
  for (const std::string& n : cv.names())
    if (n.size() > prefix.size() + suffix.size() && n.starts_with(prefix) && n.ends_with(suffix))
      out.push_back(n.substr(prefix.size(), n.size() - prefix.size() - suffix.size()));
  std::sort(out.begin(), out.end());
  return out;
}

// Whether the MCA parameter file `path` sets `name` ("name = value" lines).
bool file_sets(const std::string& path, const std::string& name) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    line = line.substr(0, line.find('#'));
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string key = line.substr(0, eq);
    key.erase(std::remove_if(key.begin(), key.end(), [](char c) { return c == ' ' || c == '\t'; }), key.end());
    if (key == name) return true;
  }
  return false;
}

// Where Open MPI's setting `name` came from, in its order of precedence.
std::string open_mpi_source(const ControlVariables& cv, const std::string& name, const std::string& set_by_option) {
  const Json override_file = cv.value("mca_base_override_param_file");
  if (override_file.is_string() && file_sets(override_file.get<std::string>(), name))
    return "override file " + override_file.get<std::string>();
  const std::string variable = "OMPI_MCA_" + name;
  if (std::getenv(variable.c_str()) != nullptr)
    return (name == set_by_option ? "--single-copy via " : "environment ") + variable;
  const Json files = cv.value("mca_base_param_files");
  if (files.is_string()) {
    std::stringstream list(files.get<std::string>());
    for (std::string path; std::getline(list, path, ',');)
      if (!path.empty() && file_sets(path, name)) return "file " + path;
  }
  return "default";
}

// The highest-priority single-copy component Open MPI 5 kept open, or "none".
std::string selected_smsc(const ControlVariables& cv) {
  std::string best = "none";
  long long best_priority = 0;
  for (const std::string& c : open_components(cv, "smsc")) {
    const Json p = cv.value("smsc_" + c + "_priority");
    const long long priority = p.is_number_integer() ? p.get<long long>() : 0;
    if (best == "none" || priority > best_priority) best = c, best_priority = priority;
  }
  return best;
}

void read_open_mpi(const ControlVariables& cv, const Library& lib, SingleCopy requested, Json& t) {
  const std::vector<std::string> pmls = open_components(cv, "pml");
  if (pmls.size() == 1) t["pml"] = pmls.front();
  const Json btl = cv.value("btl");
  if (btl.is_string() && !btl.get<std::string>().empty()) t["btl"] = btl;
  const std::vector<std::string> btls = open_components(cv, "btl");
  t["btl_components"] = btls;
  const std::string shm = std::count(btls.begin(), btls.end(), "sm")      ? "sm"
                          : std::count(btls.begin(), btls.end(), "vader") ? "vader"
                                                                          : "";
  std::vector<std::string> names{"pml", "btl", "mtl", "smsc"};
  std::string single_copy_name;
  if (!shm.empty()) {
    t["shared_memory_btl"] = shm;
    const std::string prefix = "btl_" + shm + "_";
    single_copy_name = cv.has(prefix + "single_copy_mechanism") ? prefix + "single_copy_mechanism" : "smsc";
    const Json mechanism = single_copy_name == "smsc" ? Json(cv.has("smsc") ? selected_smsc(cv) : "none")
                                                      : cv.value(single_copy_name);
    t["single_copy"] = mechanism.is_number() ? Json(mechanism.dump()) : mechanism;  // an item the enum does not name
    t["eager_limit_bytes"] = cv.value(prefix + "eager_limit");
    for (const char* s : {"single_copy_mechanism", "eager_limit", "rndv_eager_limit", "max_send_size", "get_limit"})
      names.push_back(prefix + s);
  }
  // Between hosts ob1 uses a network BTL (tcp; openib, uct, ofi where built); a
  // message larger than its eager limit waits for the receiver (rendezvous).
  const auto network = std::find_if(btls.begin(), btls.end(), [](const std::string& b) {
    return b != "self" && b != "sm" && b != "vader" && b != "smcuda";
  });
  if (network != btls.end()) {
    t["network_btl"] = *network;
    const std::string prefix = "btl_" + *network + "_";
    t["network_eager_limit_bytes"] = cv.value(prefix + "eager_limit");
    for (const char* s : {"eager_limit", "rndv_eager_limit", "max_send_size", "if_include", "if_exclude", "use_nagle",
                          "progress_thread", "sndbuf", "rcvbuf", "links"})
      names.push_back(prefix + s);
  }
  names.insert(names.end(), {"mpi_yield_when_idle", "mpi_event_tick_rate", "hwloc_base_binding_policy"});
  for (const std::string& c : open_components(cv, "smsc")) names.push_back("smsc_" + c + "_priority");
  names.insert(names.end(), {"pml_ucx_tls", "pml_ucx_devices"});  // where UCX is the PML
  const std::string set_by_option = requested == SingleCopy::keep ? "" : single_copy_variable(lib, requested).first;
  for (const std::string& n : names) {
    if (!cv.has(n)) continue;
    t["settings"][n] = cv.value(n);
    t["setting_sources"][n] = open_mpi_source(cv, n, set_by_option);
  }
  if (!single_copy_name.empty() && t["setting_sources"].contains(single_copy_name))
    t["single_copy_source"] = t["setting_sources"][single_copy_name];
}

// MPICH and others: the control variables that name a transport or its limits.
void read_other(const ControlVariables& cv, Json& t) {
  constexpr std::size_t kMostSettings = 64;
  static const char* const kWords[] = {"NETMOD", "SHM", "XPMEM", "CMA", "EAGER", "IPC", "NEMESIS"};
  for (const std::string& n : cv.names()) {
    const bool transport = std::any_of(std::begin(kWords), std::end(kWords),
                                       [&](const char* word) { return n.find(word) != std::string::npos; });
    if (transport && t["settings"].size() < kMostSettings) t["settings"][n] = cv.value(n);
  }
}

// Variables of the MPI library and its transports set in this process's
// environment; Open MPI's launcher plumbing (mpirun's URIs and job ids) left out.
Json mpi_environment() {
  static const char* const kPrefixes[] = {"OMPI_MCA_", "UCX_", "MPIR_CVAR_", "MPICH_", "I_MPI_"};
  static const char* const kLauncher[] = {"OMPI_MCA_orte_",        "OMPI_MCA_prte_",
                                          "OMPI_MCA_ess",          "OMPI_MCA_pmix",
                                          "OMPI_MCA_initial_wdir", "OMPI_MCA_shmem_RUNTIME_QUERY_hint"};
  std::map<std::string, std::string> found;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::size_t eq = entry.find('=');
    const std::string name = entry.substr(0, eq);
    const auto starts = [&](const char* p) { return name.starts_with(p); };
    if (eq == std::string::npos || !std::any_of(std::begin(kPrefixes), std::end(kPrefixes), starts) ||
        std::any_of(std::begin(kLauncher), std::end(kLauncher), starts))
      continue;
    found[name] = entry.substr(eq + 1);
  }
  Json out = Json::object();
  for (const auto& [name, value] : found) out[name] = value;
  return out;
}

}  // namespace

namespace {

// What a child process finds in this Open MPI's MPI_T: one line per
// mechanism it offers. Open MPI 4: the items of the shared-memory BTL's
// single-copy enum; 5: the smsc components that registered variables.
std::string offered_mechanisms(const Library& lib) {
  const ControlVariables cv;
  std::string out;
  if (lib.major >= 5) {
    for (const char* m : {"cma", "xpmem", "knem"})
      for (const std::string& n : cv.names())
        if (n.starts_with(std::string("smsc_") + m + "_")) {
          out += std::string(m) + "\n";
          break;
        }
    return out;
  }
  for (const std::string& item : cv.enum_items("btl_vader_single_copy_mechanism")) out += item + "\n";
  return out;
}

// offered_mechanisms() from a child process; none where it cannot be run or finds nothing.
std::optional<std::vector<std::string>> offered_mechanisms_in_child(const Library& lib) {
  int fds[2];
  if (::pipe(fds) != 0) return std::nullopt;
  std::fflush(nullptr);
  const pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return std::nullopt;
  }
  if (child == 0) {  // no MPI here beyond MPI_T, and nothing printed
    ::close(fds[0]);
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) {
      ::dup2(null, STDOUT_FILENO);
      ::dup2(null, STDERR_FILENO);
    }
    const std::string text = offered_mechanisms(lib);
    const ssize_t written = ::write(fds[1], text.data(), text.size());
    ::_exit(written == static_cast<ssize_t>(text.size()) ? 0 : 1);
  }
  ::close(fds[1]);
  std::string text;
  char buffer[512];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || text.empty()) return std::nullopt;
  std::vector<std::string> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) out.push_back(line);
  return out;
}

}  // namespace

std::string single_copy_unavailable(SingleCopy mechanism) {
  const Library lib = library();
  if (mechanism == SingleCopy::keep || mechanism == SingleCopy::none || lib.name != "open-mpi")
    return "";  // none is always there; another library: check_single_copy says so after MPI_Init
  const std::string name = kSingleCopyNames.name(mechanism);
  const auto offered = offered_mechanisms_in_child(lib);
  if (!offered || std::find(offered->begin(), offered->end(), name) != offered->end()) return "";
  const std::string list = or_list(*offered);
  return "--single-copy " + name + ": this Open MPI " + lib.version + " was built without it; " +
         (lib.major >= 5 ? "its single-copy components are " : "its shared-memory BTL offers ") +
         (list.empty() ? std::string("none") : list) + " (--single-copy keep leaves the choice to Open MPI)";
}

void request_single_copy(SingleCopy mechanism) {
  const Library lib = library();
  if (mechanism == SingleCopy::keep || lib.name != "open-mpi") return;
  const auto [name, value] = single_copy_variable(lib, mechanism);
  setenv(("OMPI_MCA_" + name).c_str(), value.c_str(), 1);
}

Json read_mpi_transport(SingleCopy requested) {
  const Library lib = library();
  const ControlVariables cv;
  Json t{{"library", lib.name},
         {"version", lib.version.empty() ? Json(nullptr) : Json(lib.version)},
         {"source", cv.opened() ? "MPI_T control variables" : "environment only (MPI_T_init_thread failed)"},
         {"control_variables", cv.size()},
         {"pml", nullptr},
         {"btl", nullptr},
         {"btl_components", nullptr},
         {"shared_memory_btl", nullptr},
         {"single_copy", nullptr},
         {"single_copy_source", nullptr},
         {"single_copy_requested", kSingleCopyNames.name(requested)},
         {"eager_limit_bytes", nullptr},
         {"network_btl", nullptr},
         {"network_eager_limit_bytes", nullptr},
         {"settings", Json::object()},
         {"setting_sources", Json::object()},
         {"environment", mpi_environment()}};
  if (lib.name == "open-mpi") read_open_mpi(cv, lib, requested, t);
  else read_other(cv, t);
  return t;
}

void check_single_copy(const Json& t) {
  const std::string requested = t.at("single_copy_requested");
  if (requested == "keep") return;
  const std::string option = "--single-copy " + requested;
  if (t.at("library") != "open-mpi")
    throw usage_error(option + ": only Open MPI's single-copy mechanism can be chosen; this MPI is " +
                      mpi_library_version());
  // No shared-memory BTL in this process (one rank on its node, or btl
  // excludes it): no message takes that path, nothing to check.
  if (t.at("single_copy").is_null()) return;
  if (t.at("single_copy") != requested)
    throw usage_error(option + ": Open MPI did not take it: its shared-memory BTL uses " +
                      t.at("single_copy").get<std::string>() +
                      " (Open MPI falls back from a mechanism it was built without or that this node does not "
                      "permit; ompi_info --param btl " +
                      t.at("shared_memory_btl").get<std::string>() + " --level 9 lists those it has)");
}

}  // namespace hetprobe
