// The reference hetprobe's write load is checked against: the barest program
// that times MPI_Send while a full grid streams 16-byte stores into 256 MiB of
// pinned host memory (CUDA, 2 ranks; built and run by tests/gpu/load.sh).
// Before each send the GPU's copy engine writes the message into the send
// buffer, as hetprobe's payload is written. Per size: the median of 50 sends
// with the GPU idle, then with the grid writing, and the grid's rate over its
// whole run (at least 50 ms: its counter moves in large steps).
//   mpirun -np 2 bare_interference [SIZES...]   (bytes; default 1 KiB to 64 MiB, x4)
#include <cuda_runtime.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

// Every thread stores 16 B at a time, grid-stride over the buffer, pass after
// pass; each block counts its bytes and reads the stop flag every 64 stores.
__global__ void stream_writes(ulonglong2* buf, unsigned long long units, const volatile int* stop,
                              unsigned long long* bytes) {
  __shared__ int halt;
  const unsigned long long step = gridDim.x * blockDim.x;
  unsigned long long u = blockIdx.x * blockDim.x + threadIdx.x, pass = 1;
  for (unsigned long long i = 1;; ++i) {
    buf[u] = make_ulonglong2(pass, pass);
    if ((u += step) >= units) u -= units, ++pass;
    if (i % 64 == 0) {
      if (threadIdx.x == 0) {
        atomicAdd(bytes, 64ull * 16 * blockDim.x);
        halt = *stop;
      }
      __syncthreads();
      if (halt) return;
    }
  }
}

double median_send_us(int rank, char* buf, const char* message, int n, cudaStream_t copy) {
  std::vector<double> us;
  for (int i = 0; i < 55; ++i) {
    if (rank == 0) cudaMemcpyAsync(buf, message, n, cudaMemcpyDeviceToHost, copy), cudaStreamSynchronize(copy);
    MPI_Request r;
    if (rank == 1) MPI_Irecv(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &r);
    MPI_Barrier(MPI_COMM_WORLD);
    const auto t0 = std::chrono::steady_clock::now();
    if (rank == 0) MPI_Send(buf, n, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
    else MPI_Wait(&r, MPI_STATUS_IGNORE);
    if (i >= 5) us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::vector<long> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atol(argv[i]));
  if (sizes.empty())
    for (long s = 1024; s <= 64l << 20; s *= 4) sizes.push_back(s);
  const unsigned long long load_bytes = 256ull << 20;
  char *buf = nullptr, *message = nullptr;
  ulonglong2* load = nullptr;
  int* stop = nullptr;
  unsigned long long* bytes = nullptr;
  cudaSetDevice(0);  // rank 0 writes from GPU 0, as hetprobe's sender does
  cudaHostAlloc(reinterpret_cast<void**>(&buf), 64l << 20, cudaHostAllocMapped);
  cudaMalloc(reinterpret_cast<void**>(&message), 64l << 20);
  cudaMemset(message, 0x5A, 64l << 20);
  cudaHostAlloc(reinterpret_cast<void**>(&load), load_bytes, cudaHostAllocMapped);
  cudaHostAlloc(reinterpret_cast<void**>(&stop), sizeof(int), cudaHostAllocMapped);
  cudaMalloc(reinterpret_cast<void**>(&bytes), sizeof(unsigned long long));
  cudaStream_t run, peek;
  cudaStreamCreateWithFlags(&run, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&peek, cudaStreamNonBlocking);
  int sms = 0, per_sm = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, stream_writes, 1024, 0);
  if (rank == 0)
    std::printf(
        "# bare interference: %d x 1024 threads write 256 MiB pinned; size_bytes idle_us loaded_us ratio "
        "writer_gbs (over its run)\n",
        sms * per_sm);
  for (long n : sizes) {
    const double idle = median_send_us(rank, buf, message, static_cast<int>(n), peek);
    const auto launched = std::chrono::steady_clock::now();
    if (rank == 0) {
      *stop = 0;
      cudaMemset(bytes, 0, sizeof(unsigned long long));
      stream_writes<<<sms * per_sm, 1024, 0, run>>>(load, load_bytes / 16, stop, bytes);
      std::this_thread::sleep_for(std::chrono::milliseconds(5));  // at full speed before the first send
    }
    const double loaded = median_send_us(rank, buf, message, static_cast<int>(n), peek);
    if (rank == 0) {
      std::this_thread::sleep_until(launched + std::chrono::milliseconds(50));
      *stop = 1;
      cudaDeviceSynchronize();
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - launched).count();
      unsigned long long moved = 0;
      cudaMemcpy(&moved, bytes, sizeof moved, cudaMemcpyDeviceToHost);
      std::printf("%ld %.3f %.3f %.3f %.2f\n", n, idle, loaded, loaded / idle, moved / seconds * 1e-9);
      std::fflush(stdout);
    }
  }
  MPI_Finalize();
  return 0;
}
