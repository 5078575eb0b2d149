// shardlang::ProcessGroup (include/shardlang/shardlang.hpp): a run over
// several processes, through devices/mpi_transport.hpp when the build has
// MPI.
#include <chrono>
#include <cstdlib>
#include <functional>
#include <string>

#include "interp/embed/api_state.hpp"

#if SHARDLANG_HAVE_MPI
#include "devices/mpi_transport.hpp"
#endif

namespace shardlang {

struct ProcessGroup::Impl {
  devices::Processes processes;
  std::function<bool()> reports_failure;
  std::function<void(int)> abort;
};

const devices::Processes& processes_of(const ProcessGroup& group) { return group.impl().processes; }

ProcessGroup::ProcessGroup(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ProcessGroup::~ProcessGroup() = default;

int ProcessGroup::launched_process_count() {
  // Open MPI's mpirun, then the PMI launchers (MPICH's hydra, Slurm).
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"})
    if (const char* value = std::getenv(name)) return std::atoi(value);
  return 0;
}

int ProcessGroup::count() const { return impl_->processes.count(); }
int ProcessGroup::index() const { return impl_->processes.index(); }
bool ProcessGroup::reports_failure() { return impl_->reports_failure(); }

void ProcessGroup::abort(int status) {
  impl_->abort(status);
  std::_Exit(status);  // not reached: the job ends in abort
}

#if SHARDLANG_HAVE_MPI

bool ProcessGroup::mpi_available() { return true; }

std::variant<std::shared_ptr<ProcessGroup>, std::string> ProcessGroup::join_mpi() {
  auto transport = devices::MpiTransport::join();
  if (!transport) return transport.error().message;
  std::shared_ptr<devices::MpiTransport> mpi = *transport;
  auto impl = std::make_unique<Impl>();
  impl->processes = devices::Processes(mpi);
  // The others have this long to fail as well before this one speaks.
  impl->reports_failure = [mpi]() { return mpi->reports_failure(std::chrono::milliseconds(2000)); };
  impl->abort = [mpi](int status) { mpi->abort(status); };
  return std::make_shared<ProcessGroup>(std::move(impl));
}

#else

bool ProcessGroup::mpi_available() { return false; }

std::variant<std::shared_ptr<ProcessGroup>, std::string> ProcessGroup::join_mpi() {
  return std::string("this shardlang was built without MPI: install libopenmpi-dev and openmpi-bin and rebuild");
}

#endif

}  // namespace shardlang
