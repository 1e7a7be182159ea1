// The engine's MPI calls (libmcm/engine/native_mpi.h) over a FakeNetwork, for unit tests
// that run engines without MPI: natives travel on the job's application communicator as
// FakeTransport messages (held on the wire when the test holds it), generalized requests
// are made-up handles the test can ask about, and data is contiguous elements of the
// predefined types MPI_BYTE, MPI_CHAR, MPI_INT, MPI_DOUBLE and MPI_PACKED (any other
// type throws). A status's size travels in Open MPI's own field for it (_ucount).
// Blocking waits throw: one thread drives every engine, so a wait would never end.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <set>

#include "engine/native_mpi.h"
#include "support/fake_transport.h"

namespace mcm::testing {

class FakeNativeMpi final : public engine::NativeMpi {
 public:
  /// The process whose messages `transport` sends and receives.
  explicit FakeNativeMpi(FakeTransport transport) : transport_(std::move(transport)) {}

  int isend(engine::SendMode mode, const void* buf, int count, MPI_Datatype type, int peer, int tag,
            MPI_Comm comm, MPI_Request* request) override;
  int irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
            MPI_Request* request) override;
  int iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) override;
  int improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
              MPI_Status* status) override;
  int imrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message,
             MPI_Request* request) override;
  bool cancel_receive(MPI_Request* request, MPI_Status* status, int* error) override;
  int testsome(int n, MPI_Request* requests, int* outcount, int* indices,
               MPI_Status* statuses) override;
  int waitany(int n, MPI_Request* requests, int* index, MPI_Status* status) override;
  int waitsome(int n, MPI_Request* requests, int* outcount, int* indices,
               MPI_Status* statuses) override;
  int received_bytes(const MPI_Status& status) override { return static_cast<int>(status._ucount); }
  void grequest_start(engine::Op* op, MPI_Request* request) override;
  void grequest_complete(MPI_Request request) override;
  void request_free(MPI_Request* request) override;
  void set_status(MPI_Status* status, int source, int tag, int error, MPI_Count bytes,
                  bool cancelled) override;
  engine::Layout1D describe(const void* buf, int count, MPI_Datatype type) override;
  std::vector<char> pack(const void* buf, int count, MPI_Datatype type) override;
  void unpack(const char* data, std::size_t bytes, void* buf, int count, MPI_Datatype type,
              MPI_Comm self) override;

  /// Whether the engine completed the generalized request `handle` (the application's
  /// MPI_Test would say so), and how many it made and has not freed.
  bool grequest_completed(MPI_Request handle) const { return completed_.count(handle) != 0; }
  std::size_t grequests_live() const { return live_.size(); }

 private:
  static int bytes_of(int count, MPI_Datatype type);
  /// FakeTransport's statuses carry the size in MPI_ERROR: moved to _ucount.
  static void to_native_status(MPI_Status* status);

  FakeTransport transport_;
  std::uint64_t next_grequest_ = 1ull << 40;  ///< apart from the network's handles
  std::set<MPI_Request> live_, completed_;
};

}  // namespace mcm::testing
