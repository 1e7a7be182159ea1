// The seam between the engine and the MPI calls it makes on the application's behalf:
// the native path (mcm/protocol/frames.h rules 9-11: native sends, receive backings,
// natives taken out of MPI's queue, cancelled backings, waiting inside MPI), the
// application's handles (generalized requests) and statuses, and the datatypes it reads
// and writes. The frame path's calls go through mcm/transport.h instead.
//
// Contract (both implementations): each call means what its PMPI_ namesake means, on the
// application's communicators and datatypes; a completed request becomes
// MPI_REQUEST_NULL; a completed receive's status carries MPI_SOURCE and MPI_TAG, and its
// size for received_bytes(). pmpi_native() is MPI itself; the unit tests' fake
// (test/unit/support/fake_native_mpi.h) runs engines over an in-memory network whose
// natives can be held on the wire, so that tests replay orderings a real run hits once in
// a hundred.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "engine/datatype.h"
#include "engine/op.h"

namespace mcm::engine {

class NativeMpi {
 public:
  virtual ~NativeMpi() = default;

  // ---- the native path ----
  /// MPI_Isend, MPI_Ibsend, MPI_Issend or MPI_Irsend, by `mode`.
  virtual int isend(SendMode mode, const void* buf, int count, MPI_Datatype type, int peer, int tag,
                    MPI_Comm comm, MPI_Request* request) = 0;
  virtual int irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                    MPI_Request* request) = 0;
  virtual int iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) = 0;
  virtual int improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                      MPI_Status* status) = 0;
  virtual int imrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message,
                     MPI_Request* request) = 0;
  /// Cancels a receive and waits for it (MPI_Cancel, MPI_Wait, MPI_Test_cancelled): true
  /// when it was cancelled; false when it had matched a message first, its status then
  /// in *status and the wait's error in *error.
  virtual bool cancel_receive(MPI_Request* request, MPI_Status* status, int* error) = 0;
  virtual int testsome(int n, MPI_Request* requests, int* outcount, int* indices,
                       MPI_Status* statuses) = 0;
  virtual int waitany(int n, MPI_Request* requests, int* index, MPI_Status* status) = 0;
  virtual int waitsome(int n, MPI_Request* requests, int* outcount, int* indices,
                       MPI_Status* statuses) = 0;
  /// The size in bytes of the message a completed receive's (or a probe's) status describes.
  virtual int received_bytes(const MPI_Status& status) = 0;

  // ---- the application's handles and statuses ----
  /// A generalized request for `op` (its status queries read the operation).
  virtual void grequest_start(Op* op, MPI_Request* request) = 0;
  virtual void grequest_complete(MPI_Request request) = 0;
  /// Frees a completed generalized request (*request = MPI_REQUEST_NULL).
  virtual void request_free(MPI_Request* request) = 0;
  /// Writes a status the application reads (MPI_Status_set_elements_x, _set_cancelled).
  virtual void set_status(MPI_Status* status, int source, int tag, int error, MPI_Count bytes,
                          bool cancelled) = 0;

  // ---- datatypes (datatype.h) ----
  virtual Layout1D describe(const void* buf, int count, MPI_Datatype type) = 0;
  virtual std::vector<char> pack(const void* buf, int count, MPI_Datatype type) = 0;
  /// `self`: the engine's private dup of MPI_COMM_SELF (datatype.h's unpack()).
  virtual void unpack(const char* data, std::size_t bytes, void* buf, int count, MPI_Datatype type,
                      MPI_Comm self) = 0;
};

/// MPI itself: the PMPI_ calls (no state; one per process).
NativeMpi& pmpi_native();

}  // namespace mcm::engine
