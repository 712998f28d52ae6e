#include "bench/core/mpi_context.hpp"

#include <chrono>
#include <thread>

#include "base/errors.hpp"
#include "base/interrupt.hpp"

namespace hetprobe {

void mpi_check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw Error(ErrorKind::mpi, std::string(what) + " failed: " + std::string(text, static_cast<std::size_t>(len)));
}

MpiContext mpi_context(MPI_Comm comm) {
  MpiContext m;
  m.comm = comm;
  mpi_check(MPI_Comm_rank(comm, &m.rank), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(comm, &m.size), "MPI_Comm_size");
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  mpi_check(MPI_Get_processor_name(name, &len), "MPI_Get_processor_name");
  m.host.assign(name, static_cast<std::size_t>(len));
  MPI_Comm node;
  mpi_check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  mpi_check(MPI_Comm_rank(node, &m.node_rank), "MPI_Comm_rank");
  mpi_check(MPI_Comm_size(node, &m.node_size), "MPI_Comm_size");
  MPI_Comm_free(&node);
  return m;
}

std::string mpi_library_version() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(text, &len);
  std::string s(text, static_cast<std::size_t>(len));
  while (!s.empty() && (s.back() == '\n' || s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

std::vector<std::string> gather_strings(const MpiContext& mpi, const std::string& mine, int root) {
  const int len = static_cast<int>(mine.size());
  std::vector<int> lens(mpi.rank == root ? static_cast<std::size_t>(mpi.size) : 0);
  mpi_check(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, root, mpi.comm), "MPI_Gather");
  std::vector<int> displs(lens.size());
  int total = 0;
  for (std::size_t i = 0; i < lens.size(); ++i) {
    displs[i] = total;
    total += lens[i];
  }
  std::string all(static_cast<std::size_t>(total), '\0');
  mpi_check(MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, root, mpi.comm),
            "MPI_Gatherv");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < lens.size(); ++i)
    out.push_back(all.substr(static_cast<std::size_t>(displs[i]), static_cast<std::size_t>(lens[i])));
  return out;
}

std::string broadcast_string(const MpiContext& mpi, std::string value, int root) {
  unsigned long long len = value.size();
  mpi_check(MPI_Bcast(&len, 1, MPI_UNSIGNED_LONG_LONG, root, mpi.comm), "MPI_Bcast");
  value.resize(len);
  mpi_check(MPI_Bcast(value.data(), static_cast<int>(len), MPI_CHAR, root, mpi.comm), "MPI_Bcast");
  return value;
}

unsigned long long node_sum(const MpiContext& mpi, unsigned long long mine) {
  MPI_Comm node;
  mpi_check(MPI_Comm_split_type(mpi.comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
  unsigned long long sum = 0;
  const int rc = MPI_Allreduce(&mine, &sum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, node);
  MPI_Comm_free(&node);
  mpi_check(rc, "MPI_Allreduce");
  return sum;
}

void interruptible_barrier(const MpiContext& mpi) {
  MPI_Request r;
  mpi_check(MPI_Ibarrier(mpi.comm, &r), "MPI_Ibarrier");
  for (int done = 0; !done;) {
    mpi_check(MPI_Test(&r, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    throw_if_interrupted();
  }
}

int first_failed_rank(const MpiContext& mpi, bool failed) {
  int mine = failed ? mpi.rank : mpi.size;
  int first = mpi.size;
  mpi_check(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, mpi.comm), "MPI_Allreduce");
  return first == mpi.size ? -1 : first;
}

}  // namespace hetprobe
