// Small MPI helpers shared by the MPI probes. MPI is the distributed engine:
// ranks are started by mpirun/srun, never by hetprobe.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

namespace hetprobe {

struct MpiContext {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  std::string host;  // MPI_Get_processor_name
};

// Throws Error(ErrorKind::mpi) naming `what` and MPI's error string.
void mpi_check(int rc, const char* what);

MpiContext mpi_context(MPI_Comm comm);
std::string mpi_library_version();

// Every rank's string, on `root` (empty vector elsewhere).
std::vector<std::string> gather_strings(const MpiContext& mpi, const std::string& mine, int root = 0);
// `root`'s string, on every rank.
std::string broadcast_string(const MpiContext& mpi, std::string value, int root = 0);

// Agreement on a per-rank failure: returns the lowest rank whose `failed` is
// true, or -1 when none failed. Collective.
int first_failed_rank(const MpiContext& mpi, bool failed);

}  // namespace hetprobe
