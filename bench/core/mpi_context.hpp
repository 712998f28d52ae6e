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
  // This rank among the ranks of `comm` that share its node (memory), and how many they are.
  int node_rank = 0;
  int node_size = 1;
};

// Throws Error(ErrorKind::mpi) naming `what` and MPI's error string.
void mpi_check(int rc, const char* what);

// Collective over `comm` (it finds the ranks sharing this node).
MpiContext mpi_context(MPI_Comm comm);
std::string mpi_library_version();

// Every rank's string, on `root` (empty vector elsewhere).
std::vector<std::string> gather_strings(const MpiContext& mpi, const std::string& mine, int root = 0);
// `root`'s string, on every rank.
std::string broadcast_string(const MpiContext& mpi, std::string value, int root = 0);

// The sum of `mine` over the ranks of this node (e.g. the memory they will
// allocate), on each of them. Collective.
unsigned long long node_sum(const MpiContext& mpi, unsigned long long mine);

// A barrier that sleeps (1 ms steps) instead of spinning, so a rank waiting
// for another gives it the core, and that a Ctrl-C ends (throw_if_interrupted).
void interruptible_barrier(const MpiContext& mpi);

// Agreement on a per-rank failure: returns the lowest rank whose `failed` is
// true, or -1 when none failed. Collective.
int first_failed_rank(const MpiContext& mpi, bool failed);

}  // namespace hetprobe
