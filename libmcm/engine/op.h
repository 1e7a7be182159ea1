// The engine's operations and arriving messages (data only; engine.cpp acts on them).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "engine/datatype.h"
#include "engine/matching.h"
#include "mcm/protocol/frames.h"

namespace mcm::engine {

struct Message;

/// How a send completes (MPI's four modes; ready sends behave as standard ones).
enum class SendMode { standard, buffered, synchronous, ready };

/// One point-to-point operation the application can see through an MPI_Request.
struct Op {
  enum class Kind { send, recv, persistent_send, persistent_recv };
  Kind kind = Kind::send;
  MPI_Request handle = MPI_REQUEST_NULL;  ///< a generalized request, the user's handle
  MPI_Comm comm = MPI_COMM_NULL;          ///< where errors are raised
  int context = -1;

  // What the operation was asked to do (also the arguments of a persistent request).
  void* buf = nullptr;
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  int peer = MPI_PROC_NULL;  ///< destination (send) or source pattern (receive)
  int tag = 0;
  SendMode mode = SendMode::standard;

  // Send progress.
  int frames_in_flight = 0;
  bool waiting_for_ack = false;
  std::uint64_t msg_id = 0;

  // Receive progress.
  double t_request = 0;        ///< t_rq: when the application posted it (wall_seconds)
  Message* message = nullptr;  ///< the matched message, once matched
  Layout1D target;             ///< where the data goes (base nullptr: unpack at the end)

  // Completion and the status it reports.
  bool done = false;
  bool user_done = false;  ///< the application has been told (send of MPI_Bsend: at once)
  int source = MPI_ANY_SOURCE;
  int status_tag = MPI_ANY_TAG;
  int error = MPI_SUCCESS;
  std::uint64_t bytes = 0;
  bool cancelled = false;

  // The native path (frames.h rules 9-11): the MPI request behind this operation, if any.
  // A receive's backing (PMPI_Irecv), a receive of a native the engine took out of MPI's
  // queue (PMPI_Imrecv: `taken`), or a native send the engine started itself (a
  // persistent request's, a held one's); the engine watches it (Engine::natives_) and
  // completes the operation from its status.
  enum class Native { none, backing, taken, send };
  Native native = Native::none;
  MPI_Request native_request = MPI_REQUEST_NULL;
  /// The payload copied (MPI_PACKED): a held send's, a buffered send's.
  std::vector<char> payload_copy;

  // Persistent requests: the operation currently started, and whether MPI_Request_free
  // came while it was active.
  Op* active = nullptr;
  bool free_when_done = false;
};

/// A message arriving at this rank, from its first frame until its receive completes.
struct Message {
  protocol::Envelope envelope;  ///< of the first frame
  std::vector<char> data;       ///< payload held here (unmatched, or non-contiguous target)
  std::uint64_t received = 0;   ///< payload bytes arrived so far
  double t_arrival = 0;         ///< t_r: when the last frame reached this VM
  bool arrival_precise = true;  ///< t_arrival known to within 1 ms (see Engine::stamp_arrival)
  /// The message from the same VM that reached this rank before it: when, and its payload
  /// (a late report names it, runtime_messages.h rule 2). t_ahead 0: none.
  double t_ahead = 0;
  std::uint64_t bytes_ahead = 0;
  Op* receive = nullptr;  ///< the receive it matched
  bool probed = false;    ///< taken by MPI_Mprobe, waiting for MPI_Mrecv
  /// A native taken out of MPI's queue (frames.h rule 10) and not received yet:
  /// PMPI_Imrecv receives it once a receive matched it (Engine::receive_taken), so that a
  /// synchronous sender completes only then, and the data lands in the user's buffer.
  MPI_Message taken = MPI_MESSAGE_NULL;
  bool complete() const { return received >= envelope.message_bytes; }
};

}  // namespace mcm::engine
