// The Transport of processes.hpp over MPI (Open MPI from Debian's
// libopenmpi-dev). Compiled only when the build found MPI (CMake option
// SHARDLANG_MPI); docs/scale-out.md says how to run with it.
#pragma once

#include <chrono>
#include <memory>

#include "devices/error.hpp"
#include "devices/processes.hpp"

namespace devices {

class MpiTransport : public Transport {
 public:
  // Joins the MPI job this process was started in (MPI_Init_thread): one per
  // process; MPI_Finalize runs when it is destroyed.
  static Expected<std::shared_ptr<MpiTransport>> join();
  ~MpiTransport() override;
  MpiTransport(const MpiTransport&) = delete;
  MpiTransport& operator=(const MpiTransport&) = delete;

  int process_count() const override;
  int process_index() const override;
  void begin_operation() override;
  Ticket start_send(int process, std::span<const std::byte> bytes) override;
  Ticket start_receive(int process, std::span<std::byte> bytes) override;
  void wait(Ticket ticket) override;
  void complete() override;
  void broadcast(std::span<std::byte> bytes, int root, const std::vector<int>& processes) override;
  void all_gather(std::span<std::byte> whole, const std::vector<std::size_t>& counts,
                  const std::vector<int>& processes) override;

  // After this process failed: whether it is the one to print why. When
  // every process fails within `wait` (the same error on all), process 0
  // reports and the others stay silent; otherwise the others are busy
  // elsewhere and this one reports.
  bool reports_failure(std::chrono::milliseconds wait);
  // Ends every process of the job with `status` (MPI_Abort).
  [[noreturn]] void abort(int status);

  struct State;

 private:
  explicit MpiTransport(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace devices
