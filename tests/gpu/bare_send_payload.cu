// hetprobe interference's SSB send, bare: a blocking MPI_Send of 64 KiB, 1 MiB
// and 16 MiB, the receiver's Irecv posted before a barrier, timed on rank 0,
// median of 60 after 5 warm-up; from a pageable or a pinned (cudaHostAlloc)
// buffer, its payload untouched or rewritten by the CPU (memset) before each
// send, as hetprobe's sender writes it. Asks whether the buffer's kind or the
// payload's writing explains hetprobe's SSB time at 1 and 16 MiB (the node
// model's beta). Two ranks (mpirun -np 2), a GPU each where there are two.
#include <cuda_runtime.h>
#include <mpi.h>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const long most = 16L << 20;
  std::vector<char> pageable(most, 1);
  char* pinned = nullptr;
  cudaSetDevice(rank);
  cudaHostAlloc(reinterpret_cast<void**>(&pinned), most, cudaHostAllocDefault);
  std::memset(pinned, 1, most);
  for (long n : {65536L, 1L << 20, 16L << 20})
    for (int p = 0; p < 2; ++p)
      for (int rewrite = 0; rewrite < 2; ++rewrite) {
        char* buf = p ? pinned : pageable.data();
        std::vector<double> t;
        for (int i = -5; i < 60; ++i) {
          MPI_Request q = MPI_REQUEST_NULL;
          if (rank == 1) MPI_Irecv(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &q);
          if (rank == 0 && rewrite) std::memset(buf, i & 0xff, n);
          MPI_Barrier(MPI_COMM_WORLD);
          const double t0 = MPI_Wtime();
          if (rank == 0) MPI_Send(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
          else MPI_Wait(&q, MPI_STATUS_IGNORE);
          const double t1 = MPI_Wtime();
          if (i >= 0) t.push_back((t1 - t0) * 1e6);
        }
        if (rank == 0)
          std::printf("bare send %9ld B %-8s %-9s: median %9.2f us, %.4f ns/B (60 sends)\n", n,
                      p ? "pinned" : "pageable", rewrite ? "rewritten" : "untouched", median(t), median(t) * 1e3 / n);
      }
  MPI_Finalize();
}
