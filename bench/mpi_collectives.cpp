// An all-gather and an all-reduce of 256 MiB across processes, both ways in
// one run: shardlang's collectives (devices/collectives.hpp over the MPI
// transport, one simulated device per process) and the same MPI
// collectives called directly, osu-style (best of a few, after a barrier).
// The acceptance of the MPI backend: shardlang within 1.5x of MPI.
//
// Built and run by bench/mpi_collectives.sh.
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>

#include "devices/collectives.hpp"
#include "devices/mpi_transport.hpp"

namespace {

using devices::Buffer;
using devices::Shards;
using typecheck::DType;

double best_seconds(int rounds, const std::function<void()>& body) {
  double best = 1e30;
  for (int round = 0; round < rounds; ++round) {
    MPI_Barrier(MPI_COMM_WORLD);
    auto start = std::chrono::steady_clock::now();
    body();
    MPI_Barrier(MPI_COMM_WORLD);
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return best;
}

// One shard of `count` floats per process, this process's real.
Shards shards_of(const std::shared_ptr<devices::MemoryLedger>& ledger, int processes, int me, std::int64_t count) {
  Shards shards;
  for (int p = 0; p < processes; ++p) {
    if (p != me) {
      shards.push_back(Buffer::remote(ledger, p, DType::float32, count));
      continue;
    }
    auto made = Buffer::allocate(ledger, DType::float32, count, devices::Fill::uninitialized);
    if (!made) std::abort();
    auto values = (*made)->elements<DType::float32>();
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>((i + static_cast<std::size_t>(me)) % 1000);
    shards.push_back(*made);
  }
  return shards;
}

}  // namespace

int main(int argc, char** argv) {
  std::int64_t mebibytes = argc > 1 ? std::atoll(argv[1]) : 256;
  auto joined = devices::MpiTransport::join();
  if (!joined) {
    std::fprintf(stderr, "%s\n", joined.error().message.c_str());
    return 1;
  }
  std::shared_ptr<devices::MpiTransport> transport = *joined;
  int processes = transport->process_count(), me = transport->process_index();
  auto ledger = std::make_shared<devices::MemoryLedger>(std::vector<devices::MemoryLedger::DeviceMemory>(processes),
                                                        std::int64_t{1} << 40, devices::Processes(transport));
  std::int64_t count = (mebibytes << 20) / 4;
  devices::ReplicaGroups everyone(1);
  for (int p = 0; p < processes; ++p) everyone[0].push_back(p);
  const int rounds = 3;

  // All-reduce: every process's 256 MiB summed.
  Shards whole = shards_of(ledger, processes, me, count);
  double ours_reduce = best_seconds(rounds, [&] {
    if (!devices::all_reduce_sum(whole, {count}, everyone)) std::abort();
  });
  std::vector<float> in(static_cast<std::size_t>(count), 1.0f), out(static_cast<std::size_t>(count));
  double mpi_reduce = best_seconds(rounds, [&] {
    MPI_Allreduce(in.data(), out.data(), static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  });

  // All-gather: 256 MiB gathered, 256/P MiB from each process.
  std::int64_t piece = count / processes;
  Shards pieces = shards_of(ledger, processes, me, piece);
  double ours_gather = best_seconds(rounds, [&] {
    if (!devices::all_gather(pieces, {piece}, everyone, 0)) std::abort();
  });
  double mpi_gather = best_seconds(rounds, [&] {
    MPI_Allgather(in.data(), static_cast<int>(piece), MPI_FLOAT, out.data(), static_cast<int>(piece), MPI_FLOAT,
                  MPI_COMM_WORLD);
  });

  if (me == 0) {
    std::printf("%d processes, %lld MiB, best of %d\n", processes, static_cast<long long>(mebibytes), rounds);
    std::printf("all-reduce  shardlang %8.1f ms   MPI_Allreduce %8.1f ms   ratio %.2f\n", ours_reduce * 1e3,
                mpi_reduce * 1e3, ours_reduce / mpi_reduce);
    std::printf("all-gather  shardlang %8.1f ms   MPI_Allgather %8.1f ms   ratio %.2f\n", ours_gather * 1e3,
                mpi_gather * 1e3, ours_gather / mpi_gather);
  }
  return 0;
}
