#include "support/fake_native_mpi.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace mcm::testing {

int FakeNativeMpi::bytes_of(int count, MPI_Datatype type) {
  int size = 0;
  if (type == MPI_BYTE || type == MPI_CHAR || type == MPI_PACKED)
    size = 1;
  else if (type == MPI_INT)
    size = static_cast<int>(sizeof(int));
  else if (type == MPI_DOUBLE)
    size = static_cast<int>(sizeof(double));
  else
    throw std::runtime_error("fake MPI: a datatype the fake does not know");
  return count * size;
}

void FakeNativeMpi::to_native_status(MPI_Status* status) {
  status->_ucount = static_cast<size_t>(status->MPI_ERROR);
  status->_cancelled = 0;
  status->MPI_ERROR = MPI_SUCCESS;
}

int FakeNativeMpi::isend(engine::SendMode mode, const void* buf, int count, MPI_Datatype type,
                         int peer, int tag, MPI_Comm comm, MPI_Request* request) {
  if (mode == engine::SendMode::synchronous)
    transport_.issend(buf, bytes_of(count, type), peer, tag, comm, request);
  else
    transport_.isend(buf, bytes_of(count, type), peer, tag, comm, request);
  return MPI_SUCCESS;
}

int FakeNativeMpi::irecv(void* buf, int count, MPI_Datatype type, int source, int tag,
                         MPI_Comm comm, MPI_Request* request) {
  transport_.irecv(buf, bytes_of(count, type), source, tag, comm, request);
  return MPI_SUCCESS;
}

int FakeNativeMpi::iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status*) {
  *flag = transport_.iprobe(source, tag, comm) ? 1 : 0;
  return MPI_SUCCESS;
}

int FakeNativeMpi::improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                           MPI_Status* status) {
  const auto probed = transport_.improbe(source, tag, comm, message);
  *flag = probed ? 1 : 0;
  if (probed && status != MPI_STATUS_IGNORE)
    set_status(status, probed->source, probed->tag, MPI_SUCCESS, probed->bytes, false);
  return MPI_SUCCESS;
}

int FakeNativeMpi::imrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message,
                          MPI_Request* request) {
  transport_.imrecv(buf, bytes_of(count, type), message, request);
  return MPI_SUCCESS;
}

bool FakeNativeMpi::cancel_receive(MPI_Request* request, MPI_Status* status, int* error) {
  *error = MPI_SUCCESS;
  const bool cancelled = transport_.cancel_or_take(request, status);
  if (!cancelled) to_native_status(status);
  return cancelled;
}

int FakeNativeMpi::testsome(int n, MPI_Request* requests, int* outcount, int* indices,
                            MPI_Status* statuses) {
  *outcount = transport_.testsome(n, requests, indices, statuses);
  if (*outcount != MPI_UNDEFINED)
    for (int i = 0; i < *outcount; ++i) to_native_status(&statuses[i]);
  return MPI_SUCCESS;
}

int FakeNativeMpi::waitany(int n, MPI_Request* requests, int* index, MPI_Status* status) {
  for (int i = 0; i < n; ++i) {
    if (requests[i] == MPI_REQUEST_NULL) continue;
    if (!transport_.test(&requests[i], status)) continue;
    to_native_status(status);
    *index = i;
    return MPI_SUCCESS;
  }
  throw std::runtime_error("fake MPI: a blocking wait with nothing complete (one thread: never)");
}

int FakeNativeMpi::waitsome(int n, MPI_Request* requests, int* outcount, int* indices,
                            MPI_Status* statuses) {
  testsome(n, requests, outcount, indices, statuses);
  if (*outcount == 0)
    throw std::runtime_error("fake MPI: a blocking wait with nothing complete (one thread: never)");
  return MPI_SUCCESS;
}

void FakeNativeMpi::grequest_start(engine::Op*, MPI_Request* request) {
  *request = reinterpret_cast<MPI_Request>(static_cast<std::uintptr_t>(next_grequest_++));
  live_.insert(*request);
}

void FakeNativeMpi::grequest_complete(MPI_Request request) {
  if (live_.count(request) == 0)
    throw std::runtime_error("fake MPI: completing a generalized request not live");
  if (!completed_.insert(request).second)
    throw std::runtime_error("fake MPI: a generalized request completed twice");
}

void FakeNativeMpi::request_free(MPI_Request* request) {
  if (live_.erase(*request) == 0)
    throw std::runtime_error("fake MPI: freeing a generalized request not live");
  completed_.erase(*request);
  *request = MPI_REQUEST_NULL;
}

void FakeNativeMpi::set_status(MPI_Status* status, int source, int tag, int error, MPI_Count bytes,
                               bool cancelled) {
  status->MPI_SOURCE = source;
  status->MPI_TAG = tag;
  status->MPI_ERROR = error;
  status->_ucount = static_cast<size_t>(bytes);
  status->_cancelled = cancelled ? 1 : 0;
}

engine::Layout1D FakeNativeMpi::describe(const void* buf, int count, MPI_Datatype type) {
  return engine::Layout1D{const_cast<char*>(static_cast<const char*>(buf)),
                          static_cast<std::size_t>(bytes_of(count, type))};
}

std::vector<char> FakeNativeMpi::pack(const void* buf, int count, MPI_Datatype type) {
  const char* bytes = static_cast<const char*>(buf);
  return std::vector<char>(bytes, bytes + bytes_of(count, type));
}

void FakeNativeMpi::unpack(const char* data, std::size_t bytes, void* buf, int count,
                           MPI_Datatype type, MPI_Comm) {
  if (bytes > static_cast<std::size_t>(bytes_of(count, type)))
    throw std::runtime_error("fake MPI: unpacking more than the buffer holds");
  std::memcpy(buf, data, bytes);
}

}  // namespace mcm::testing
