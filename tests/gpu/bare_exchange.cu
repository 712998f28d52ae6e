// The MPI path the node model fits (docs/metrics.md, "The node model"),
// measured bare: per size, K messages of n bytes sent one way (rank 0 posts
// its Isends, rank 1 its Irecvs, timed on rank 0 to MPI_Waitall), then
// exchanged both ways as hetprobe halo's baseline does (each rank's Irecvs
// posted, a barrier, its Isends, MPI_Waitall on both, timed on rank 0), for
// K = 1 and 6 (a cube's faces), median of 200 after 20 warm-up. No GPU: it
// asks whether an exchange costs its two directions' one-way times (their
// ratio, exchange / (2 x one way)) and what a byte costs at the halo's sizes,
// beside characterize's fitted beta. Two ranks (mpirun -np 2).
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <vector>

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  if (ranks != 2) MPI_Abort(MPI_COMM_WORLD, 2);
  constexpr int reps = 200, warmup = 20, most_messages = 6;
  constexpr long sizes[] = {4096, 65536, 240000, 960000, 4194304, 16777216};
  const int peer = rank ^ 1;
  std::vector<char> send(most_messages * sizes[5], 1), receive(most_messages * sizes[5], 0);
  for (int messages : {1, most_messages})
    for (long n : sizes) {
      std::vector<double> one_way, exchange;
      for (int i = -warmup; i < reps; ++i) {
        std::vector<MPI_Request> q(messages, MPI_REQUEST_NULL);
        if (rank == 1)
          for (int m = 0; m < messages; ++m)
            MPI_Irecv(receive.data() + m * n, static_cast<int>(n), MPI_BYTE, 0, m, MPI_COMM_WORLD, &q[m]);
        MPI_Barrier(MPI_COMM_WORLD);
        const double t0 = MPI_Wtime();
        if (rank == 0)
          for (int m = 0; m < messages; ++m)
            MPI_Isend(send.data() + m * n, static_cast<int>(n), MPI_BYTE, 1, m, MPI_COMM_WORLD, &q[m]);
        MPI_Waitall(messages, q.data(), MPI_STATUSES_IGNORE);
        const double t1 = MPI_Wtime();
        std::vector<MPI_Request> b(2 * messages, MPI_REQUEST_NULL);
        for (int m = 0; m < messages; ++m)
          MPI_Irecv(receive.data() + m * n, static_cast<int>(n), MPI_BYTE, peer, m, MPI_COMM_WORLD, &b[m]);
        MPI_Barrier(MPI_COMM_WORLD);
        const double t2 = MPI_Wtime();
        for (int m = 0; m < messages; ++m)
          MPI_Isend(send.data() + m * n, static_cast<int>(n), MPI_BYTE, peer, m, MPI_COMM_WORLD, &b[messages + m]);
        MPI_Waitall(2 * messages, b.data(), MPI_STATUSES_IGNORE);
        const double t3 = MPI_Wtime();
        if (i >= 0) one_way.push_back((t1 - t0) * 1e6), exchange.push_back((t3 - t2) * 1e6);
      }
      if (rank != 0) continue;
      const double o = median(one_way), x = median(exchange), bytes = static_cast<double>(messages) * n;
      std::printf(
          "bare exchange %d x %8ld B: one way %9.2f us (%.4f ns/B), both ways %9.2f us (%.4f ns/B of both "
          "directions), both / (2 x one way) %.3f (%d each)\n",
          messages, n, o, o * 1e3 / bytes, x, x * 1e3 / (2 * bytes), x / (2 * o), reps);
    }
  MPI_Finalize();
  return 0;
}
