// The hand-written point-to-point wrappers (C). Same skeleton in each: substitute the
// communicator; if the engine does not manage it (mode off/record, unmanaged
// communicator) or an argument is invalid, pass the call to MPI unchanged (MPI then
// raises exactly its own error); otherwise ask the engine which way the message goes
// (Engine::send_path): natively (mode adaptive, healthy pair: the MPI call itself, no
// engine operation) or through the engine. Every send, whichever way it went, ends in
// recorder::counted_send() (mode record counts it).
#include <mpi.h>

#include "engine/datatype.h"
#include "record/pattern_recorder.h"
#include "wrappers/wrapper_support.h"

using mcm::shim::Backoff;
using mcm::shim::Context;
using mcm::shim::Lock;
using mcm::shim::managed;
using mcm::shim::PollPacing;
using mcm::shim::process_engine;
using mcm::shim::wait_engine_op;
using mcm::shim::wait_engine_request;
using mcm::shim::wait_request;
using SendMode = mcm::engine::SendMode;
using SendPath = mcm::engine::Engine::SendPath;
using mcm::shim::recorder::counted_send;

namespace {

using Blocking = int (*)(const void*, int, MPI_Datatype, int, int, MPI_Comm);
using Nonblocking = int (*)(const void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);

bool sendable(const Context* c, int count, MPI_Datatype type, int dest, int tag) {
  return c != nullptr && mcm::engine::Engine::valid_count_type(count, type) &&
         mcm::engine::Engine::valid_peer(dest, *c, false) &&
         mcm::engine::Engine::valid_tag(tag, false);
}

bool receivable(const Context* c, int count, MPI_Datatype type, int source, int tag) {
  return c != nullptr && mcm::engine::Engine::valid_count_type(count, type) &&
         mcm::engine::Engine::valid_peer(source, *c, true) &&
         mcm::engine::Engine::valid_tag(tag, true);
}

/// Starts a send under the engine lock: natively (`native`, its MPI request) or as one of
/// the engine's operations. Returns MPI's code of a native start, else MPI_SUCCESS.
int start_send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               Context& c, SendMode mode, MPI_Request* request, Nonblocking native) {
  mcm::engine::Engine& engine = process_engine();
  const SendPath path = dest == MPI_PROC_NULL ? SendPath::frames : engine.send_path(c, dest);
  if (path == SendPath::native) return native(buf, count, type, dest, tag, comm, request);
  *request = engine.isend(buf, count, type, dest, tag, comm, c, mode, path);
  return MPI_SUCCESS;
}

// Blocking send of any mode: start it (natively or through the engine), then wait, the
// engine's way: never PMPI_Send alone, which could block (a rendezvous) while a peer waits
// for this engine to answer its flush (frames.h rule 11).
int send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
         SendMode mode, Blocking blocking, Nonblocking nonblocking) {
  comm = mcm_substitute(comm);
  Context* c = managed(comm);
  if (!sendable(c, count, type, dest, tag))
    return counted_send(blocking(buf, count, type, dest, tag, comm), comm, dest, count, type);
  MPI_Request request = MPI_REQUEST_NULL;
  int rc;
  {
    Lock lock(process_engine().lock());
    rc = start_send(buf, count, type, dest, tag, comm, *c, mode, &request, nonblocking);
  }
  if (rc == MPI_SUCCESS) rc = wait_request(&request, MPI_STATUS_IGNORE);
  return counted_send(rc, comm, dest, count, type);
}

int isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
          MPI_Request* request, SendMode mode, Nonblocking native) {
  comm = mcm_substitute(comm);
  Context* c = managed(comm);
  int rc;
  if (sendable(c, count, type, dest, tag)) {
    Lock lock(process_engine().lock());
    rc = start_send(buf, count, type, dest, tag, comm, *c, mode, request, native);
  } else {
    rc = native(buf, count, type, dest, tag, comm, request);
  }
  return counted_send(rc, comm, dest, count, type);
}

int init(const void* buf, int count, MPI_Datatype type, int peer, int tag, MPI_Comm comm,
         MPI_Request* request, SendMode mode, bool receive, Nonblocking native) {
  comm = mcm_substitute(comm);
  const Context* c = managed(comm);
  const bool ok =
      receive ? receivable(c, count, type, peer, tag) : sendable(c, count, type, peer, tag);
  int rc = MPI_SUCCESS;
  if (!ok) {
    rc = native(buf, count, type, peer, tag, comm, request);
    if (rc == MPI_SUCCESS && process_engine().active()) {
      Lock lock(process_engine().lock());
      process_engine().note_native_persistent(*request);
    }
  } else {
    Lock lock(process_engine().lock());
    using Kind = mcm::engine::Op::Kind;
    *request =
        process_engine().persistent(receive ? Kind::persistent_recv : Kind::persistent_send,
                                    const_cast<void*>(buf), count, type, peer, tag, comm, *c, mode);
  }
  // A persistent send is counted at each MPI_Start (completion_wrappers.cpp), not here.
  if (rc == MPI_SUCCESS && !receive)
    mcm::shim::recorder::persistent_send(*request, comm, peer, count, type);
  return rc;
}

int recv_init_native(const void* buf, int count, MPI_Datatype type, int source, int tag,
                     MPI_Comm comm, MPI_Request* request) {
  return PMPI_Recv_init(const_cast<void*>(buf), count, type, source, tag, comm, request);
}

int attached_buffer_bytes = 0;  // MPI_Bsend without a buffer: let MPI report the error

}  // namespace

extern "C" {

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return send(buf, count, type, dest, tag, comm, SendMode::standard, PMPI_Send, PMPI_Isend);
}
int MPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return send(buf, count, type, dest, tag, comm, SendMode::ready, PMPI_Rsend, PMPI_Irsend);
}
int MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return send(buf, count, type, dest, tag, comm, SendMode::synchronous, PMPI_Ssend, PMPI_Issend);
}
int MPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  if (attached_buffer_bytes == 0) {
    comm = mcm_substitute(comm);
    return counted_send(PMPI_Bsend(buf, count, type, dest, tag, comm), comm, dest, count, type);
  }
  return send(buf, count, type, dest, tag, comm, SendMode::buffered, PMPI_Bsend, PMPI_Ibsend);
}

int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  return isend(buf, count, type, dest, tag, comm, request, SendMode::standard, PMPI_Isend);
}
int MPI_Irsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return isend(buf, count, type, dest, tag, comm, request, SendMode::ready, PMPI_Irsend);
}
int MPI_Issend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  return isend(buf, count, type, dest, tag, comm, request, SendMode::synchronous, PMPI_Issend);
}
int MPI_Ibsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
  if (attached_buffer_bytes == 0) {
    comm = mcm_substitute(comm);
    return counted_send(PMPI_Ibsend(buf, count, type, dest, tag, comm, request), comm, dest, count,
                        type);
  }
  return isend(buf, count, type, dest, tag, comm, request, SendMode::buffered, PMPI_Ibsend);
}

int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request* request) {
  comm = mcm_substitute(comm);
  const Context* c = managed(comm);
  if (!receivable(c, count, type, source, tag))
    return PMPI_Irecv(buf, count, type, source, tag, comm, request);
  Lock lock(process_engine().lock());
  *request = process_engine().irecv(buf, count, type, source, tag, comm, *c);
  return MPI_SUCCESS;
}

int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
  comm = mcm_substitute(comm);
  const Context* c = managed(comm);
  if (!receivable(c, count, type, source, tag))
    return PMPI_Recv(buf, count, type, source, tag, comm, status);
  mcm::engine::Op* op;
  {
    Lock lock(process_engine().lock());
    op = process_engine().recv_op(buf, count, type, source, tag, comm, *c);
  }
  return wait_engine_op(op, status);
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status* status) {
  comm = mcm_substitute(comm);
  Context* c = managed(comm);
  if (!sendable(c, sendcount, sendtype, dest, sendtag) ||
      !receivable(c, recvcount, recvtype, source, recvtag))
    return counted_send(PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                                      recvcount, recvtype, source, recvtag, comm, status),
                        comm, dest, sendcount, sendtype);
  MPI_Request send_request;
  mcm::engine::Op* receive;
  int send_error;
  {
    Lock lock(process_engine().lock());
    receive = process_engine().recv_op(recvbuf, recvcount, recvtype, source, recvtag, comm, *c);
    send_error = start_send(sendbuf, sendcount, sendtype, dest, sendtag, comm, *c,
                            SendMode::standard, &send_request, PMPI_Isend);
  }
  if (send_error == MPI_SUCCESS) send_error = wait_request(&send_request, MPI_STATUS_IGNORE);
  const int recv_error = wait_engine_op(receive, status);
  return counted_send(recv_error != MPI_SUCCESS ? recv_error : send_error, comm, dest, sendcount,
                      sendtype);
}

int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm, MPI_Status* status) {
  comm = mcm_substitute(comm);
  Context* c = managed(comm);
  if (!sendable(c, count, type, dest, sendtag) || !receivable(c, count, type, source, recvtag))
    return counted_send(
        PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status), comm,
        dest, count, type);
  // The message leaves from a packed copy (a native send reads the user's buffer
  // until it completes), so the receive may overwrite the buffer at once.
  const std::vector<char> copy =
      dest == MPI_PROC_NULL ? std::vector<char>() : mcm::engine::pack(buf, count, type);
  MPI_Request send_request;
  mcm::engine::Op* receive;
  int send_error;
  {
    Lock lock(process_engine().lock());
    send_error = start_send(copy.data(), static_cast<int>(copy.size()), MPI_PACKED, dest, sendtag,
                            comm, *c, SendMode::standard, &send_request, PMPI_Isend);
    receive = process_engine().recv_op(buf, count, type, source, recvtag, comm, *c);
  }
  if (send_error == MPI_SUCCESS) send_error = wait_request(&send_request, MPI_STATUS_IGNORE);
  const int recv_error = wait_engine_op(receive, status);
  return counted_send(recv_error != MPI_SUCCESS ? recv_error : send_error, comm, dest, count, type);
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  comm = mcm_substitute(comm);
  const Context* c = managed(comm);
  if (c == nullptr || !mcm::engine::Engine::valid_peer(source, *c, true) ||
      !mcm::engine::Engine::valid_tag(tag, true) || source == MPI_PROC_NULL)
    return PMPI_Iprobe(source, tag, comm, flag, status);
  {
    Lock lock(process_engine().lock());
    *flag = process_engine().iprobe(source, tag, *c, status) ? 1 : 0;
  }
  PollPacing::polled(*flag != 0);
  return MPI_SUCCESS;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  comm = mcm_substitute(comm);
  const Context* c = managed(comm);
  if (c == nullptr || !mcm::engine::Engine::valid_peer(source, *c, true) ||
      !mcm::engine::Engine::valid_tag(tag, true) || source == MPI_PROC_NULL)
    return PMPI_Probe(source, tag, comm, status);
  for (Backoff backoff;; backoff.idle()) {
    Lock lock(process_engine().lock());
    if (process_engine().iprobe(source, tag, *c, status)) return MPI_SUCCESS;
  }
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
                MPI_Status* status) {
  comm = mcm_substitute(comm);
  const Context* c = managed(comm);
  if (c == nullptr || !mcm::engine::Engine::valid_peer(source, *c, true) ||
      !mcm::engine::Engine::valid_tag(tag, true) || source == MPI_PROC_NULL)
    return PMPI_Improbe(source, tag, comm, flag, message, status);
  {
    Lock lock(process_engine().lock());
    *flag = process_engine().improbe(source, tag, *c, message, status) ? 1 : 0;
  }
  PollPacing::polled(*flag != 0);
  return MPI_SUCCESS;
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  comm = mcm_substitute(comm);
  const Context* c = managed(comm);
  if (c == nullptr || !mcm::engine::Engine::valid_peer(source, *c, true) ||
      !mcm::engine::Engine::valid_tag(tag, true) || source == MPI_PROC_NULL)
    return PMPI_Mprobe(source, tag, comm, message, status);
  for (Backoff backoff;; backoff.idle()) {
    Lock lock(process_engine().lock());
    if (process_engine().improbe(source, tag, *c, message, status)) return MPI_SUCCESS;
  }
}

int MPI_Imrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message,
               MPI_Request* request) {
  Lock lock(process_engine().lock());
  if (!process_engine().owns(*message) || !mcm::engine::Engine::valid_count_type(count, type))
    return PMPI_Imrecv(buf, count, type, message, request);
  *request = process_engine().imrecv(buf, count, type, message);
  return MPI_SUCCESS;
}

int MPI_Mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message, MPI_Status* status) {
  MPI_Request request;
  {
    Lock lock(process_engine().lock());
    if (!process_engine().owns(*message) || !mcm::engine::Engine::valid_count_type(count, type))
      return PMPI_Mrecv(buf, count, type, message, status);
    request = process_engine().imrecv(buf, count, type, message);
  }
  return wait_engine_request(&request, status);
}

int MPI_Send_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  return init(buf, count, type, dest, tag, comm, request, SendMode::standard, false,
              PMPI_Send_init);
}
int MPI_Bsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return init(buf, count, type, dest, tag, comm, request, SendMode::buffered, false,
              PMPI_Bsend_init);
}
int MPI_Ssend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return init(buf, count, type, dest, tag, comm, request, SendMode::synchronous, false,
              PMPI_Ssend_init);
}
int MPI_Rsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
  return init(buf, count, type, dest, tag, comm, request, SendMode::ready, false, PMPI_Rsend_init);
}
int MPI_Recv_init(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                  MPI_Request* request) {
  return init(buf, count, type, source, tag, comm, request, SendMode::standard, true,
              recv_init_native);
}

int MPI_Buffer_attach(void* buffer, int size) {
  const int rc = PMPI_Buffer_attach(buffer, size);
  if (rc == MPI_SUCCESS) attached_buffer_bytes = size;
  return rc;
}

int MPI_Buffer_detach(void* buffer_addr, int* size) {
  // MPI: detaching waits until the buffered messages have been transmitted.
  for (Backoff backoff;; backoff.idle()) {
    Lock lock(process_engine().lock());
    if (!process_engine().active() || !process_engine().buffered_pending()) break;
    if (process_engine().progress()) backoff.moved();
  }
  const int rc = PMPI_Buffer_detach(buffer_addr, size);
  if (rc == MPI_SUCCESS) attached_buffer_bytes = 0;
  return rc;
}

}  // extern "C"
