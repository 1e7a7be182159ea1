#include "support/fake_transport.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace mcm::testing {
namespace {

template <class Handle>
Handle to_handle(std::uint64_t id) {
  if constexpr (std::is_pointer_v<Handle>)
    return reinterpret_cast<Handle>(static_cast<std::uintptr_t>(id));
  else
    return static_cast<Handle>(id);
}

template <class Handle>
std::uint64_t to_id(Handle handle) {
  if constexpr (std::is_pointer_v<Handle>)
    return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(handle));
  else
    return static_cast<std::uint64_t>(handle);
}

void copy_into(void* buffer, int capacity, const std::vector<char>& data) {
  if (static_cast<int>(data.size()) > capacity)
    throw std::runtime_error("fake MPI: a message of " + std::to_string(data.size()) +
                             " bytes into a buffer of " + std::to_string(capacity) +
                             " (MPI_ERR_TRUNCATE)");
  if (!data.empty()) std::memcpy(buffer, data.data(), data.size());
}

}  // namespace

// ---- FakeNetwork ------------------------------------------------------------------------

MPI_Comm FakeNetwork::add_comm(int size) {
  std::lock_guard<std::mutex> lock(mutex_);
  const MPI_Comm comm = to_handle<MPI_Comm>(16 + 16 * sizes_.size());
  sizes_[comm] = size;
  return comm;
}

std::vector<WaitingMessage> FakeNetwork::waiting(MPI_Comm comm, int destination) const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<WaitingMessage> found;
  for (const Message& message : unmatched_)
    if (message.m.comm == comm && (destination < 0 || message.m.destination == destination))
      found.push_back(message.m);
  return found;
}

void FakeNetwork::hold_wire(MPI_Comm comm) {
  std::lock_guard<std::mutex> lock(mutex_);
  wires_[comm];
}

bool FakeNetwork::arrive_next(MPI_Comm comm, int source, int destination) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto wire = wires_.find(comm);
  if (wire == wires_.end()) return false;
  auto& queue = wire->second;
  for (auto it = queue.begin(); it != queue.end(); ++it) {
    if (it->m.source != source || it->m.destination != destination) continue;
    Message message = std::move(*it);
    queue.erase(it);
    deliver(std::move(message));
    return true;
  }
  return false;
}

std::size_t FakeNetwork::on_wire(MPI_Comm comm, int source, int destination) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto wire = wires_.find(comm);
  if (wire == wires_.end()) return 0;
  return static_cast<std::size_t>(std::count_if(
      wire->second.begin(), wire->second.end(),
      [&](const Message& m) { return m.m.source == source && m.m.destination == destination; }));
}

std::uint64_t FakeNetwork::new_request(bool complete) {
  const std::uint64_t id = next_id_++;
  requests_[id].complete = complete;
  return id;
}

bool FakeNetwork::accepts(int want_source, int want_tag, const WaitingMessage& m) {
  return (want_source == MPI_ANY_SOURCE || want_source == m.source) &&
         (want_tag == MPI_ANY_TAG || want_tag == m.tag);
}

void FakeNetwork::complete_receive(Request& r, const WaitingMessage& m) {
  copy_into(r.buffer, r.capacity, m.data);
  r.complete = true;
  r.status.MPI_SOURCE = m.source;
  r.status.MPI_TAG = m.tag;
  r.status.MPI_ERROR = static_cast<int>(m.data.size());
}

void FakeNetwork::complete_request(std::uint64_t id) {
  if (id != 0) requests_[id].complete = true;
}

void FakeNetwork::deliver(Message message) {
  for (auto it = posted_.begin(); it != posted_.end(); ++it) {
    Request& r = requests_[*it];
    if (r.comm != message.m.comm || r.owner != message.m.destination ||
        !accepts(r.source, r.tag, message.m))
      continue;
    complete_receive(r, message.m);
    complete_request(message.sender_request);
    posted_.erase(it);
    changed_.notify_all();
    return;
  }
  unmatched_.push_back(std::move(message));
  changed_.notify_all();
}

// ---- FakeTransport ----------------------------------------------------------------------

void FakeTransport::post_send(const void* data, int bytes, int destination, int tag, MPI_Comm comm,
                              MPI_Request* request, bool synchronous) {
  std::lock_guard<std::mutex> lock(network_.mutex_);
  if (destination < 0 || destination >= network_.sizes_.at(comm))
    throw std::runtime_error("fake MPI: send to rank " + std::to_string(destination) +
                             " of a communicator of " + std::to_string(network_.sizes_.at(comm)));
  FakeNetwork::Message message;
  message.m.comm = comm;
  message.m.source = ranks_.at(comm);
  message.m.destination = destination;
  message.m.tag = tag;
  message.m.synchronous = synchronous;
  if (bytes > 0)
    message.m.data.assign(static_cast<const char*>(data), static_cast<const char*>(data) + bytes);
  const std::uint64_t id = network_.new_request(!synchronous);
  if (synchronous) message.sender_request = id;
  if (request != nullptr) *request = to_handle<MPI_Request>(id);
  const auto wire = network_.wires_.find(comm);
  if (wire != network_.wires_.end()) {
    wire->second.push_back(std::move(message));
    return;
  }
  network_.deliver(std::move(message));
}

void FakeTransport::isend(const void* data, int bytes, int destination, int tag, MPI_Comm comm,
                          MPI_Request* request) {
  post_send(data, bytes, destination, tag, comm, request, false);
}

void FakeTransport::issend(const void* data, int bytes, int destination, int tag, MPI_Comm comm,
                           MPI_Request* request) {
  post_send(data, bytes, destination, tag, comm, request, true);
}

void FakeTransport::send(const void* data, int bytes, int destination, int tag, MPI_Comm comm) {
  MPI_Request request;
  post_send(data, bytes, destination, tag, comm, &request, false);
  std::lock_guard<std::mutex> lock(network_.mutex_);
  take_if_complete(&request, MPI_STATUS_IGNORE);
}

void FakeTransport::irecv(void* data, int bytes, int source, int tag, MPI_Comm comm,
                          MPI_Request* request) {
  std::lock_guard<std::mutex> lock(network_.mutex_);
  const std::uint64_t id = network_.new_request(false);
  FakeNetwork::Request& r = network_.requests_[id];
  r.comm = comm;
  r.owner = ranks_.at(comm);
  r.source = source;
  r.tag = tag;
  r.buffer = data;
  r.capacity = bytes;
  *request = to_handle<MPI_Request>(id);
  auto& queue = network_.unmatched_;
  for (auto it = queue.begin(); it != queue.end(); ++it) {
    if (it->m.comm != comm || it->m.destination != r.owner ||
        !FakeNetwork::accepts(source, tag, it->m))
      continue;
    network_.complete_receive(r, it->m);
    network_.complete_request(it->sender_request);
    queue.erase(it);
    network_.changed_.notify_all();
    return;
  }
  network_.posted_.push_back(id);
}

bool FakeTransport::iprobe(int source, int tag, MPI_Comm comm) {
  std::lock_guard<std::mutex> lock(network_.mutex_);
  const int me = ranks_.at(comm);
  return std::any_of(network_.unmatched_.begin(), network_.unmatched_.end(), [&](const auto& m) {
    return m.m.comm == comm && m.m.destination == me && FakeNetwork::accepts(source, tag, m.m);
  });
}

std::optional<Probed> FakeTransport::improbe(int source, int tag, MPI_Comm comm,
                                             MPI_Message* message) {
  std::lock_guard<std::mutex> lock(network_.mutex_);
  const int me = ranks_.at(comm);
  auto& queue = network_.unmatched_;
  for (auto it = queue.begin(); it != queue.end(); ++it) {
    if (it->m.comm != comm || it->m.destination != me || !FakeNetwork::accepts(source, tag, it->m))
      continue;
    const Probed probed{it->m.source, it->m.tag, static_cast<int>(it->m.data.size())};
    network_.complete_request(it->sender_request);  // matched: a synchronous send completes
    const std::uint64_t id = network_.next_id_++;
    network_.probed_[id] = std::move(*it);
    queue.erase(it);
    *message = to_handle<MPI_Message>(id);
    network_.changed_.notify_all();
    return probed;
  }
  return std::nullopt;
}

void FakeTransport::mrecv(void* data, int bytes, MPI_Message* message) {
  std::lock_guard<std::mutex> lock(network_.mutex_);
  auto it = network_.probed_.find(to_id(*message));
  if (it == network_.probed_.end()) throw std::runtime_error("fake MPI: mrecv of no message");
  copy_into(data, bytes, it->second.m.data);
  network_.probed_.erase(it);
  *message = MPI_MESSAGE_NULL;
}

void FakeTransport::imrecv(void* data, int bytes, MPI_Message* message, MPI_Request* request) {
  std::uint64_t id = 0;
  {
    std::lock_guard<std::mutex> lock(network_.mutex_);
    auto it = network_.probed_.find(to_id(*message));
    if (it == network_.probed_.end()) throw std::runtime_error("fake MPI: imrecv of no message");
    id = network_.new_request(true);
    FakeNetwork::Request& r = network_.requests_[id];
    r.buffer = data;
    r.capacity = bytes;
    network_.complete_receive(r, it->second.m);
    network_.probed_.erase(it);
  }
  *message = MPI_MESSAGE_NULL;
  *request = to_handle<MPI_Request>(id);
}

void FakeTransport::ibarrier(MPI_Comm comm, MPI_Request* request) {
  std::lock_guard<std::mutex> lock(network_.mutex_);
  const std::uint64_t id = network_.new_request(false);
  *request = to_handle<MPI_Request>(id);
  FakeNetwork::Collective& c = network_.collectives_[comm];
  c.barrier_requests.push_back(id);
  if (static_cast<int>(c.barrier_requests.size()) < network_.sizes_.at(comm)) return;
  for (std::uint64_t r : c.barrier_requests) network_.complete_request(r);
  c.barrier_requests.clear();
  network_.changed_.notify_all();
}

bool FakeTransport::take_if_complete(MPI_Request* request, MPI_Status* status) {
  auto it = network_.requests_.find(to_id(*request));
  if (it == network_.requests_.end())
    throw std::runtime_error("fake MPI: a request this network did not make");
  if (!it->second.complete) return false;
  if (status != MPI_STATUS_IGNORE) *status = it->second.status;
  network_.requests_.erase(it);
  *request = MPI_REQUEST_NULL;
  return true;
}

int FakeTransport::testsome(int count, MPI_Request* requests, int* done, MPI_Status* statuses) {
  std::lock_guard<std::mutex> lock(network_.mutex_);
  int active = 0, completed = 0;
  for (int i = 0; i < count; ++i) {
    if (requests[i] == MPI_REQUEST_NULL) continue;
    ++active;
    MPI_Status status{};
    if (!take_if_complete(&requests[i], &status)) continue;
    if (statuses != MPI_STATUSES_IGNORE) statuses[completed] = status;
    done[completed++] = i;
  }
  return active == 0 ? MPI_UNDEFINED : completed;
}

bool FakeTransport::test(MPI_Request* request, MPI_Status* status) {
  std::lock_guard<std::mutex> lock(network_.mutex_);
  if (*request == MPI_REQUEST_NULL) return true;
  return take_if_complete(request, status);
}

void FakeTransport::cancel_receive(MPI_Request* request) {
  MPI_Status ignored;
  cancel_or_take(request, &ignored);
}

bool FakeTransport::cancel_or_take(MPI_Request* request, MPI_Status* status) {
  std::lock_guard<std::mutex> lock(network_.mutex_);
  if (*request == MPI_REQUEST_NULL) return true;
  if (take_if_complete(request, status)) return false;
  const std::uint64_t id = to_id(*request);
  auto& posted = network_.posted_;
  posted.erase(std::remove(posted.begin(), posted.end(), id), posted.end());
  network_.requests_.erase(id);
  *request = MPI_REQUEST_NULL;
  return true;
}

Probed FakeTransport::recv(void* data, int bytes, int source, int tag, MPI_Comm comm) {
  MPI_Request request;
  irecv(data, bytes, source, tag, comm, &request);
  std::unique_lock<std::mutex> lock(network_.mutex_);
  MPI_Status status{};
  if (!network_.changed_.wait_for(lock, network_.timeout_,
                                  [&] { return take_if_complete(&request, &status); }))
    throw std::runtime_error("fake MPI: recv from rank " + std::to_string(source) + " tag " +
                             std::to_string(tag) + " timed out");
  return Probed{status.MPI_SOURCE, status.MPI_TAG, status.MPI_ERROR};
}

void FakeTransport::allreduce_sum(double* values, int count, MPI_Comm comm) {
  std::unique_lock<std::mutex> lock(network_.mutex_);
  FakeNetwork::Collective& c = network_.collectives_[comm];
  if (c.arrived == 0) c.sum.assign(static_cast<std::size_t>(count), 0.0);
  for (int i = 0; i < count; ++i) c.sum[static_cast<std::size_t>(i)] += values[i];
  const std::uint64_t generation = c.generation;
  if (++c.arrived == network_.sizes_.at(comm)) {
    c.result = c.sum;
    c.arrived = 0;
    ++c.generation;
    network_.changed_.notify_all();
  } else if (!network_.changed_.wait_for(lock, network_.timeout_,
                                         [&] { return c.generation != generation; })) {
    throw std::runtime_error("fake MPI: allreduce timed out");
  }
  std::copy(c.result.begin(), c.result.end(), values);
}

}  // namespace mcm::testing
