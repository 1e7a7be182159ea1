// The engine's completion side (Engine, engine/engine.h): sends that finished, the
// progress loop, and MPI_Test/Wait/Request_free/Cancel on the engine's requests.
#include "engine/engine.h"
#include "engine/status.h"
#include "mcm/clock.h"
#include "mcm/progress_scopes.h"

namespace mcm::engine {

// ---- completion ------------------------------------------------------------------------

void Engine::on_sent(Op* op) {
  if (op == nullptr) return;
  --op->frames_in_flight;
  maybe_finish_send(op);
}

void Engine::maybe_finish_send(Op* op) {
  if (op->frames_in_flight > 0 || op->waiting_for_ack) return;
  op->done = true;
  if (op->user_done) {         // buffered: the application was told already
    if (op->free_when_done) {  // ...and has let go of it
      --detached_;
      delete op;
    }
    return;
  }
  complete(op);
}

void Engine::complete(Op* op) {
  op->done = true;
  op->user_done = true;
  if (op->handle != MPI_REQUEST_NULL) {
    mpi_->grequest_complete(op->handle);
  } else if (op->free_when_done) {
    --detached_;
    delete op;
  }
}

void Engine::add_outside_until(double start) {
  if (in_native_collectives_ == 0 && start > in_mpi_until_) outside_mpi_s_ += start - in_mpi_until_;
}

void Engine::native_collective_begin() {
  if (in_native_collectives_ == 0) {
    const double now = mcm::wall_seconds();
    add_outside_until(now);
    in_mpi_until_ = now;
  }
  ++in_native_collectives_;
}

void Engine::native_collective_end() {
  if (in_native_collectives_ > 0 && --in_native_collectives_ == 0)
    in_mpi_until_ = mcm::wall_seconds();
}

void Engine::note_waited_in_mpi() {
  if (in_native_collectives_ == 0) in_mpi_until_ = mcm::wall_seconds();
}

void Engine::note_blocked_in_mpi(double start) {
  const double now = mcm::wall_seconds();
  if (now - start > kPollGap) last_progress_end_ = now;
  add_outside_until(start);
  in_mpi_until_ = now;
}

bool Engine::progress() {
  // A turn is a series of polls (each MPI call a turn of MPI's progress loop): none of
  // them yields the core; the wait around the turn does, as the job asked.
  const mcm::NoMpiYield no_yield;
  const double start = mcm::wall_seconds();
  if (start - last_progress_end_ > kPollGap) {
    gap_start_ = last_progress_end_;
    gap_end_ = start;
  }
  add_outside_until(start);
  bool moved = frames_.poll([this](const protocol::Envelope& e, const char* p) { on_frame(e, p); },
                            [this](Op* op) { on_sent(op); });
  if (!natives_.empty()) moved = poll_natives() || moved;
  match_released();
  if (!epochs_.empty()) moved = take_owed_natives() || moved;
  if (side_ != nullptr) moved = side_->poll() || moved;
  note_frames_waiting();
  last_progress_end_ = in_mpi_until_ = mcm::wall_seconds();
  late_.poll(last_progress_end_);
  return moved;
}

bool Engine::test(MPI_Request* request, MPI_Status* status, int* error, bool release_it,
                  MPI_Comm* comm) {
  Op* op = ops_.at(*request);
  if (comm != nullptr) *comm = op->comm;
  *error = MPI_SUCCESS;
  if (op->kind == Op::Kind::persistent_send || op->kind == Op::Kind::persistent_recv) {
    Op* active = op->active;
    if (active == nullptr) {
      fill_empty_status(*mpi_, status);
      return true;
    }
    if (!active->user_done) return false;
    fill_status(*mpi_, status, *active);
    *error = active->error;
    if (release_it) {
      op->active = nullptr;
      release(active);
    }
    return true;
  }
  if (!op->user_done) return false;
  fill_status(*mpi_, status, *op);
  *error = op->error;
  if (release_it) {
    ops_.erase(*request);
    mpi_->request_free(request);  // completed grequest: freed now, *request = NULL
    op->handle = MPI_REQUEST_NULL;
    release(op);
  }
  return true;
}

// Deletes an operation whose handle is gone; one still sending lives on, detached.
void Engine::release(Op* op) {
  if (op->done) {
    delete op;
  } else {
    op->free_when_done = true;
    ++detached_;
  }
}

void Engine::free(MPI_Request* request) {
  Op* op = ops_.at(*request);
  ops_.erase(*request);
  const MPI_Request handle = op->handle;
  op->handle = MPI_REQUEST_NULL;
  if (op->kind == Op::Kind::persistent_send || op->kind == Op::Kind::persistent_recv) {
    if (op->active != nullptr) release(op->active);
    mpi_->grequest_complete(handle);
    delete op;
  } else {
    if (!op->user_done) mpi_->grequest_complete(handle);
    release(op);
  }
  mpi_->request_free(request);
}

void Engine::cancel(MPI_Request request) {
  Op* op = ops_.at(request);
  if (op->kind == Op::Kind::persistent_recv) op = op->active;
  if (op == nullptr || op->kind != Op::Kind::recv || op->message != nullptr || op->done) return;
  if (!matcher_.cancel(op, op->context)) return;
  if (!unback(op)) return;  // its backing had matched a message: not cancelled
  op->cancelled = true;
  complete(op);
}

}  // namespace mcm::engine
