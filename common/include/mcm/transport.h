// The seam between MCM's logic and MPI (LevelDB's Env, for messages): every MPI call the
// daemon (relay, runtime, clock offsets, poller) and the engine's frame path make on
// MCM's own communicators goes through a Transport, so that the logic runs in unit tests
// over FakeTransport (test/unit/support/fake_transport.h) as it runs in a job over
// mpi_transport(). Not behind it: the shim's wrappers, which *are* MPI calls of the
// application, the engine's native path (behind its own seam, libmcm/engine/native_mpi.h:
// calls on the application's communicators and datatypes) and the start-up
// (mcm/bootstrap.h).
//
// Contract (both implementations): the calls mean what their PMPI_ namesakes mean, on
// bytes (MPI_BYTE); ranks are ranks of `comm`; MPI_ANY_SOURCE and MPI_ANY_TAG work where
// MPI allows them; completed requests become MPI_REQUEST_NULL; a status passed to a
// completion carries MPI_SOURCE and MPI_TAG. Messages between one pair on one
// communicator are matched in the order they were sent (MPI's non-overtaking rule).
// Errors abort the job (MPI's default handler) or, in the fake, throw.
#pragma once

#include <mpi.h>

#include <optional>

namespace mcm {

/// A message a probe found and matched (PMPI_Improbe): its source, tag and size.
struct Probed {
  int source = -1;
  int tag = -1;
  int bytes = 0;
};

class Transport {
 public:
  virtual ~Transport() = default;

  // Non-blocking point-to-point.
  virtual void isend(const void* data, int bytes, int destination, int tag, MPI_Comm comm,
                     MPI_Request* request) = 0;
  /// Completes only once the receiver has matched the message.
  virtual void issend(const void* data, int bytes, int destination, int tag, MPI_Comm comm,
                      MPI_Request* request) = 0;
  virtual void irecv(void* data, int bytes, int source, int tag, MPI_Comm comm,
                     MPI_Request* request) = 0;
  /// Whether a message from `source` with `tag` waits (not matched).
  virtual bool iprobe(int source, int tag, MPI_Comm comm) = 0;
  /// Matches a waiting message: then `message` is its handle for mrecv/imrecv.
  virtual std::optional<Probed> improbe(int source, int tag, MPI_Comm comm,
                                        MPI_Message* message) = 0;
  virtual void mrecv(void* data, int bytes, MPI_Message* message) = 0;
  virtual void imrecv(void* data, int bytes, MPI_Message* message, MPI_Request* request) = 0;
  virtual void ibarrier(MPI_Comm comm, MPI_Request* request) = 0;

  // Completion.
  /// PMPI_Testsome: the indices of completed requests in `done`, their statuses in
  /// `statuses` (may be MPI_STATUSES_IGNORE); returns how many, or MPI_UNDEFINED when
  /// every request was MPI_REQUEST_NULL.
  virtual int testsome(int count, MPI_Request* requests, int* done, MPI_Status* statuses) = 0;
  virtual bool test(MPI_Request* request, MPI_Status* status) = 0;
  /// The size of the message a completed receive's `status` describes.
  virtual int received_bytes(const MPI_Status& status) = 0;
  /// Cancels a receive and waits until it is cancelled or complete.
  virtual void cancel_receive(MPI_Request* request) = 0;

  // Blocking (start-up only).
  virtual void send(const void* data, int bytes, int destination, int tag, MPI_Comm comm) = 0;
  virtual Probed recv(void* data, int bytes, int source, int tag, MPI_Comm comm) = 0;
  /// Element-wise sum of `values` over `comm`, in place.
  virtual void allreduce_sum(double* values, int count, MPI_Comm comm) = 0;
  virtual int rank(MPI_Comm comm) = 0;
};

/// The real transport: the PMPI_ calls themselves (no state; one per process).
Transport& mpi_transport();

}  // namespace mcm
