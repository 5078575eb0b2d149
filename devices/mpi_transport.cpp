#include "devices/mpi_transport.hpp"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <map>
#include <numeric>
#include <thread>

#include <fmt/format.h>

namespace devices {

namespace {

// MPI counts are ints: larger transfers go in pieces of this many bytes.
constexpr std::size_t largest_piece = std::size_t{1} << 30;

// Tags cycle through this range (MPI guarantees tags up to 32767).
constexpr int tag_count = 32768;

}  // namespace

struct MpiTransport::State {
  int rank = 0;
  int size = 1;
  // Point-to-point traffic of the collectives, apart from the script's and
  // MPI's own; another for the failure handshake.
  MPI_Comm data = MPI_COMM_NULL;
  MPI_Comm failure = MPI_COMM_NULL;
  // One communicator per set of processes that ran a collective together.
  std::map<std::vector<int>, MPI_Comm> groups;
  // The requests of each started transfer, by ticket, until complete().
  std::vector<std::vector<MPI_Request>> pending;
  unsigned operation = 0;

  int tag() const { return static_cast<int>(operation % tag_count); }

  MPI_Comm group(const std::vector<int>& processes) {
    auto found = groups.find(processes);
    if (found != groups.end()) return found->second;
    MPI_Group world_group = MPI_GROUP_NULL, members = MPI_GROUP_NULL;
    MPI_Comm_group(data, &world_group);
    MPI_Group_incl(world_group, static_cast<int>(processes.size()), processes.data(), &members);
    MPI_Comm made = MPI_COMM_NULL;
    // Collective over the members only, which all reach it in the same order.
    MPI_Comm_create_group(data, members, tag(), &made);
    MPI_Group_free(&members);
    MPI_Group_free(&world_group);
    groups.emplace(processes, made);
    return made;
  }
};

MpiTransport::MpiTransport(std::unique_ptr<State> state) : state_(std::move(state)) {}

Expected<std::shared_ptr<MpiTransport>> MpiTransport::join() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized)
    return Error{ErrorKind::invalid_argument, "MPI is already initialised: one MPI job per process"};
  // The interpreter calls MPI from its own thread, never from two at once.
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
    return Error{ErrorKind::invalid_argument, "MPI could not start (MPI_Init_thread failed)"};
  if (provided < MPI_THREAD_SERIALIZED) {
    MPI_Finalize();
    return Error{ErrorKind::invalid_argument,
                 "this MPI library cannot be called from the interpreter's thread (no MPI_THREAD_SERIALIZED)"};
  }
  auto state = std::make_unique<State>();
  MPI_Comm_rank(MPI_COMM_WORLD, &state->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &state->size);
  MPI_Comm_dup(MPI_COMM_WORLD, &state->data);
  MPI_Comm_dup(MPI_COMM_WORLD, &state->failure);
  return std::shared_ptr<MpiTransport>(new MpiTransport(std::move(state)));
}

MpiTransport::~MpiTransport() {
  complete();
  for (auto& [processes, comm] : state_->groups)
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  MPI_Comm_free(&state_->failure);
  MPI_Comm_free(&state_->data);
  MPI_Finalize();
}

int MpiTransport::process_count() const { return state_->size; }
int MpiTransport::process_index() const { return state_->rank; }

void MpiTransport::begin_operation() { ++state_->operation; }

Transport::Ticket MpiTransport::start_send(int process, std::span<const std::byte> bytes) {
  std::vector<MPI_Request>& requests = state_->pending.emplace_back();
  for (std::size_t offset = 0; offset < bytes.size(); offset += largest_piece) {
    std::size_t size = std::min(largest_piece, bytes.size() - offset);
    MPI_Request& request = requests.emplace_back(MPI_REQUEST_NULL);
    MPI_Isend(bytes.data() + offset, static_cast<int>(size), MPI_BYTE, process, state_->tag(), state_->data, &request);
  }
  return state_->pending.size() - 1;
}

Transport::Ticket MpiTransport::start_receive(int process, std::span<std::byte> bytes) {
  std::vector<MPI_Request>& requests = state_->pending.emplace_back();
  for (std::size_t offset = 0; offset < bytes.size(); offset += largest_piece) {
    std::size_t size = std::min(largest_piece, bytes.size() - offset);
    MPI_Request& request = requests.emplace_back(MPI_REQUEST_NULL);
    MPI_Irecv(bytes.data() + offset, static_cast<int>(size), MPI_BYTE, process, state_->tag(), state_->data, &request);
  }
  return state_->pending.size() - 1;
}

void MpiTransport::wait(Ticket ticket) {
  std::vector<MPI_Request>& requests = state_->pending.at(ticket);
  if (!requests.empty()) MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE);
  requests.clear();
}

void MpiTransport::complete() {
  for (Ticket ticket = 0; ticket < state_->pending.size(); ++ticket) wait(ticket);
  state_->pending.clear();
}

namespace {

int member_index(const std::vector<int>& processes, int process) {
  return static_cast<int>(std::lower_bound(processes.begin(), processes.end(), process) - processes.begin());
}

}  // namespace

void MpiTransport::broadcast(std::span<std::byte> bytes, int root, const std::vector<int>& processes) {
  MPI_Comm comm = state_->group(processes);
  int root_member = member_index(processes, root);
  for (std::size_t offset = 0; offset < bytes.size(); offset += largest_piece) {
    std::size_t size = std::min(largest_piece, bytes.size() - offset);
    MPI_Bcast(bytes.data() + offset, static_cast<int>(size), MPI_BYTE, root_member, comm);
  }
}

void MpiTransport::all_gather(std::span<std::byte> whole, const std::vector<std::size_t>& counts,
                              const std::vector<int>& processes) {
  MPI_Comm comm = state_->group(processes);
  // In units of the largest size dividing every part, so that the counts
  // and offsets fit MPI's ints.
  std::size_t unit = 0;
  for (std::size_t count : counts) unit = std::gcd(unit, count);
  if (unit == 0) return;  // nothing to gather
  if (whole.size() / unit > static_cast<std::size_t>(INT_MAX)) {
    // Too many units: each member broadcasts its part in turn.
    std::size_t offset = 0;
    for (std::size_t k = 0; k < processes.size(); ++k) {
      broadcast(whole.subspan(offset, counts[k]), processes[k], processes);
      offset += counts[k];
    }
    return;
  }
  MPI_Datatype unit_type = MPI_DATATYPE_NULL;
  MPI_Type_contiguous(static_cast<int>(unit), MPI_BYTE, &unit_type);
  MPI_Type_commit(&unit_type);
  std::vector<int> unit_counts, offsets;
  std::size_t offset = 0;
  for (std::size_t count : counts) {
    unit_counts.push_back(static_cast<int>(count / unit));
    offsets.push_back(static_cast<int>(offset / unit));
    offset += count;
  }
  MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, whole.data(), unit_counts.data(), offsets.data(), unit_type,
                 comm);
  MPI_Type_free(&unit_type);
}

bool MpiTransport::reports_failure(std::chrono::milliseconds wait) {
  MPI_Request request = MPI_REQUEST_NULL;
  MPI_Ibarrier(state_->failure, &request);
  auto deadline = std::chrono::steady_clock::now() + wait;
  int done = 0;
  while (!done && std::chrono::steady_clock::now() < deadline) {
    MPI_Test(&request, &done, MPI_STATUS_IGNORE);
    if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return !done || state_->rank == 0;
}

void MpiTransport::abort(int status) {
  MPI_Abort(MPI_COMM_WORLD, status);
  std::_Exit(status);  // MPI_Abort does not return; should it, end this process at least
}

}  // namespace devices
