// The processes one run spans (docs/scale-out.md). A run is one process by
// default. Under mpirun every process runs the same program (SPMD, as a
// multi-controller JAX program does) and holds one contiguous block of the
// devices: with N devices over P processes, process r holds devices
// [r*N/P, (r+1)*N/P). A device's shards live only on the process that holds
// it; the others keep a placeholder of the same dtype and size
// (Buffer::remote), so that every process sees the same arrays, types and
// HBM accounting.
//
// What crosses processes goes through a Transport: the collectives of
// collectives.hpp and the block moves of redistribute.hpp. Every process
// calls each of those in the same order (even one with nothing to send), so
// each process's transfers pair with the others' in that order.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

namespace devices {

// Moves bytes between the processes of a run (devices/mpi_transport.cpp over
// MPI). Processes are named by their index; a `processes` list is sorted and
// holds the caller.
class Transport {
 public:
  virtual ~Transport() = default;
  virtual int process_count() const = 0;
  virtual int process_index() const = 0;

  // Marks the start of one collective operation; every process calls it
  // once per operation, in the same order, so that transfers of different
  // operations can never pair.
  virtual void begin_operation() = 0;
  // Point to point, started now and finished by wait() or complete():
  // between two processes, receives pair with sends in the order both
  // started them. Empty transfers are none: both sides skip them alike.
  // The bytes must stay put until the transfer has finished.
  using Ticket = std::size_t;
  virtual Ticket start_send(int process, std::span<const std::byte> bytes) = 0;
  virtual Ticket start_receive(int process, std::span<std::byte> bytes) = 0;
  // Waits until that transfer has finished.
  virtual void wait(Ticket ticket) = 0;
  // Waits until every started transfer has finished.
  virtual void complete() = 0;
  // Collectives over `processes`, each through one communicator made the
  // first time that set of processes communicates.
  // Every member gets `bytes` of `root`.
  virtual void broadcast(std::span<std::byte> bytes, int root, const std::vector<int>& processes) = 0;
  // `whole` is the concatenation of every member's part, in member order;
  // member k's part has counts[k] bytes. Each member holds its own part in
  // place and receives the others'.
  virtual void all_gather(std::span<std::byte> whole, const std::vector<std::size_t>& counts,
                          const std::vector<int>& processes) = 0;
};

// The process of a shard every process holds (a one-device array, which
// every process keeps, as each JAX process keeps its default device's).
inline constexpr int every_process = -1;

class Processes {
 public:
  // One process: every device is here.
  Processes() = default;
  // This process's place in a run of transport->process_count() processes.
  explicit Processes(std::shared_ptr<Transport> transport) : transport_(std::move(transport)) {}

  int count() const { return transport_ ? transport_->process_count() : 1; }
  int index() const { return transport_ ? transport_->process_index() : 0; }
  // What reaches the other processes; call only when count() > 1.
  Transport& transport() const { return *transport_; }
  // The process holding device `device_id` of `device_count` (the count is
  // divisible by count(): Runtime checks it when it makes the devices).
  int holder(int device_id, int device_count) const { return device_id / (device_count / count()); }

 private:
  std::shared_ptr<Transport> transport_;
};

}  // namespace devices
