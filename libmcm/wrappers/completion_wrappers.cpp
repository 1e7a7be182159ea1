// The hand-written completion wrappers (wait/test family, free, cancel, start). Arrays may
// mix the engine's requests with native ones (collectives, RMA, unmanaged communicators):
// the engine's are tested by the engine; the native ones by MPI, through a shadow array
// in which the engine's requests are replaced by MPI_REQUEST_NULL, so that MPI's own rules
// for null and inactive requests hold. Every waiting loop drives the engine.
#include <mpi.h>

#include <cstdio>
#include <vector>

#include "engine/progress_hook.h"
#include "engine/status.h"
#include "mcm/clock.h"
#include "record/pattern_recorder.h"
#include "wrappers/wrapper_support.h"

using mcm::shim::Backoff;
using mcm::shim::Lock;
using mcm::shim::PollPacing;
using mcm::shim::process_engine;
using mcm::shim::raise;

namespace {

bool engine_on() {
  return process_engine().active();
}

/// The native requests of `requests`, ours replaced by MPI_REQUEST_NULL.
std::vector<MPI_Request> shadow_of(int count, const MPI_Request* requests) {
  std::vector<MPI_Request> shadow(requests, requests + count);
  for (auto& r : shadow)
    if (r != MPI_REQUEST_NULL && process_engine().owns(r)) r = MPI_REQUEST_NULL;
  return shadow;
}

/// Copies back what MPI did to the native entries.
void merge_shadow(int count, MPI_Request* requests, const std::vector<MPI_Request>& shadow,
                  const std::vector<bool>& ours) {
  for (int i = 0; i < count; ++i)
    if (!ours[static_cast<size_t>(i)]) requests[i] = shadow[static_cast<size_t>(i)];
}

std::vector<bool> ours_of(int count, const MPI_Request* requests) {
  std::vector<bool> ours(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i)
    ours[static_cast<size_t>(i)] =
        requests[i] != MPI_REQUEST_NULL && process_engine().owns(requests[i]);
  return ours;
}

MPI_Status* at(MPI_Status* statuses, int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

/// Tests request i (ours): on completion fills the status and records the error.
bool test_ours(MPI_Request* request, MPI_Status* status, int* error, MPI_Comm* comm) {
  return process_engine().test(request, status, error, /*release=*/true, comm);
}

// The test family's bodies; the MPI_ entry points below add the polling pace
// (PollPacing), which the wait loops built on them do not want.
int test(MPI_Request* request, int* flag, MPI_Status* status) {
  Lock lock(process_engine().lock());
  process_engine().progress();
  if (*request == MPI_REQUEST_NULL || !process_engine().owns(*request))
    return PMPI_Test(request, flag, status);
  int error = MPI_SUCCESS;
  MPI_Comm comm = MPI_COMM_NULL;
  *flag = test_ours(request, status, &error, &comm) ? 1 : 0;
  return raise(comm, error);
}

int request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  Lock lock(process_engine().lock());
  process_engine().progress();
  if (!process_engine().owns(request)) return PMPI_Request_get_status(request, flag, status);
  int error = MPI_SUCCESS;
  *flag = process_engine().test(&request, status, &error, /*release=*/false) ? 1 : 0;
  return MPI_SUCCESS;
}

int testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  Lock lock(process_engine().lock());
  process_engine().progress();
  const auto ours = ours_of(count, requests);
  auto shadow = shadow_of(count, requests);
  // All or nothing: look first (nothing is released), then complete everything.
  *flag = 0;
  for (int i = 0; i < count; ++i) {
    int done = 0, error = MPI_SUCCESS;
    if (ours[static_cast<size_t>(i)]) {
      MPI_Request r = requests[i];
      done = process_engine().test(&r, MPI_STATUS_IGNORE, &error, false);
    } else {
      PMPI_Request_get_status(shadow[static_cast<size_t>(i)], &done, MPI_STATUS_IGNORE);
    }
    if (!done) return MPI_SUCCESS;
  }
  *flag = 1;
  int native_flag = 0;
  int rc = PMPI_Testall(count, shadow.data(), &native_flag, statuses);
  merge_shadow(count, requests, shadow, ours);
  MPI_Comm failed_comm = MPI_COMM_NULL;
  bool failed = rc == MPI_ERR_IN_STATUS;
  for (int i = 0; i < count; ++i) {
    if (!ours[static_cast<size_t>(i)]) continue;
    int error = MPI_SUCCESS;
    MPI_Comm comm = MPI_COMM_NULL;
    test_ours(&requests[i], at(statuses, i), &error, &comm);
    if (error != MPI_SUCCESS && !failed) failed_comm = comm;
    failed = failed || error != MPI_SUCCESS;
  }
  return failed ? raise(failed_comm, MPI_ERR_IN_STATUS) : rc;
}

int testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  Lock lock(process_engine().lock());
  process_engine().progress();
  const auto ours = ours_of(count, requests);
  bool any_active = false;
  for (int i = 0; i < count; ++i) {
    if (!ours[static_cast<size_t>(i)]) continue;
    any_active = true;
    int error = MPI_SUCCESS;
    MPI_Comm comm = MPI_COMM_NULL;
    if (test_ours(&requests[i], status, &error, &comm)) {
      *index = i;
      *flag = 1;
      return raise(comm, error);
    }
  }
  auto shadow = shadow_of(count, requests);
  const int rc = PMPI_Testany(count, shadow.data(), index, flag, status);
  merge_shadow(count, requests, shadow, ours);
  // MPI_Testany on only ours-replaced-by-null reports "no active request" with flag 1.
  if (*flag && *index == MPI_UNDEFINED && any_active) *flag = 0;
  return rc;
}

int testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
             MPI_Status statuses[]) {
  Lock lock(process_engine().lock());
  process_engine().progress();
  const auto ours = ours_of(incount, requests);
  auto shadow = shadow_of(incount, requests);
  int native_count = 0;
  std::vector<int> native_indices(static_cast<size_t>(incount) + 1);
  std::vector<MPI_Status> native_statuses(static_cast<size_t>(incount) + 1);
  int rc = PMPI_Testsome(incount, shadow.data(), &native_count, native_indices.data(),
                         native_statuses.data());
  merge_shadow(incount, requests, shadow, ours);
  bool any_ours = false;
  for (bool o : ours) any_ours = any_ours || o;
  if (native_count == MPI_UNDEFINED) native_count = any_ours ? 0 : MPI_UNDEFINED;
  *outcount = native_count;
  if (native_count == MPI_UNDEFINED) return rc;
  for (int j = 0; j < native_count; ++j) {
    indices[j] = native_indices[static_cast<size_t>(j)];
    if (statuses != MPI_STATUSES_IGNORE) statuses[j] = native_statuses[static_cast<size_t>(j)];
  }
  MPI_Comm failed_comm = MPI_COMM_NULL;
  for (int i = 0; i < incount; ++i) {
    if (!ours[static_cast<size_t>(i)]) continue;
    int error = MPI_SUCCESS;
    MPI_Comm comm = MPI_COMM_NULL;
    if (!test_ours(&requests[i], at(statuses, *outcount), &error, &comm)) continue;
    if (statuses != MPI_STATUSES_IGNORE) statuses[*outcount].MPI_ERROR = error;
    if (error != MPI_SUCCESS && failed_comm == MPI_COMM_NULL) failed_comm = comm;
    indices[(*outcount)++] = i;
  }
  if (failed_comm != MPI_COMM_NULL) return raise(failed_comm, MPI_ERR_IN_STATUS);
  return rc;
}

}  // namespace

namespace mcm::shim {

namespace {

/// A wait that began at *started (0: now, which it records) and has lasted longer than
/// liveness.stall_warning_s: says so on stderr with what the engine waits for, and returns
/// true (once per wait). Under the engine lock.
bool warn_if_stalled(double* started) {
  const double now = mcm::wall_seconds();
  if (*started == 0) *started = now;
  const auto stall = process_engine().stall_warning();
  if (now - *started <= static_cast<double>(stall.count())) return false;
  std::fprintf(stderr,
               "libmcm: warning: world rank %d has waited %lld s in an MPI call for a message or "
               "a completion (liveness.stall_warning_s); %s\n",
               process_engine().world_rank(), static_cast<long long>(stall.count()),
               process_engine().describe_waits().c_str());
  return true;
}

/// The wait loop of an engine operation: `finished(error)` under the engine lock says
/// whether it completed (and its error); meanwhile the engine is driven, blocking in MPI
/// when it may (Engine::blocking()), else polling and sleeping on the doorbell. A wait
/// longer than liveness.stall_warning_s says once on stderr what the engine waits for.
template <class Finished>
int wait_engine(MPI_Comm comm, Finished finished) {
  double started = 0;  // the clock is read only once the operation did not finish at once
  bool warned = false;
  for (Backoff backoff;;) {
    {
      Lock lock(process_engine().lock());
      int error = MPI_SUCCESS;
      if (finished(&error, &comm)) return raise(comm, error);
      if (!warned) warned = warn_if_stalled(&started);
      if (process_engine().blocking()) {
        process_engine().block();
        continue;
      }
      if (process_engine().progress()) backoff.moved();
    }
    backoff.idle();
  }
}

}  // namespace

int wait_engine_request(MPI_Request* request, MPI_Status* status) {
  return wait_engine(MPI_COMM_NULL, [&](int* error, MPI_Comm* comm) {
    return test_ours(request, status, error, comm);
  });
}

int wait_engine_op(engine::Op* op, MPI_Status* status) {
  return wait_engine(
      op->comm, [&](int* error, MPI_Comm*) { return process_engine().test_op(op, status, error); });
}

int wait_request(MPI_Request* request, MPI_Status* status) {
  bool ours = false;
  {
    Lock lock(process_engine().lock());
    ours = *request != MPI_REQUEST_NULL && process_engine().owns(*request);
  }
  return ours ? wait_engine_request(request, status) : mcm_wait_progressing(request, status);
}

}  // namespace mcm::shim

extern "C" {

int mcm_engine_active(void) {
  return process_engine().active() ? 1 : 0;
}

int mcm_native_collective_begin(void) {
  if (!process_engine().native_collectives()) return 0;
  {
    Lock lock(process_engine().lock());
    process_engine().native_collective_begin();
  }
  mcm::engine::progress_hook::collective_begin();
  return 1;
}

void mcm_native_collective_end(void) {
  mcm::engine::progress_hook::collective_end();
  Lock lock(process_engine().lock());
  process_engine().native_collective_end();
}

int mcm_wait_progressing(MPI_Request* request, MPI_Status* status) {
  for (Backoff backoff;;) {
    {
      Lock lock(process_engine().lock());
      if (process_engine().blocking()) {
        // Never PMPI_Wait alone, even with nothing of ours pending: a peer may be waiting
        // for this engine to answer its flush (frames.h rule 11), which the attention brings.
        int error = MPI_SUCCESS;
        if (process_engine().block(request, 1, status, &error) == 0) return error;
        continue;
      }
      int flag = 0;
      const int rc = PMPI_Test(request, &flag, status);
      if (flag || rc != MPI_SUCCESS) return rc;
      if (process_engine().progress()) backoff.moved();
    }
    backoff.idle();
  }
}

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  if (!engine_on() || *request == MPI_REQUEST_NULL) return PMPI_Wait(request, status);
  bool ours = false;
  {
    Lock lock(process_engine().lock());
    ours = process_engine().owns(*request);
  }
  if (ours) return mcm::shim::wait_engine_request(request, status);
  return mcm_wait_progressing(request, status);
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  if (!engine_on()) return PMPI_Waitall(count, requests, statuses);
  std::vector<bool> done(static_cast<size_t>(count), false);
  std::vector<int> errors(static_cast<size_t>(count), MPI_SUCCESS);
  bool failed = false;
  MPI_Comm failed_comm = MPI_COMM_NULL;  // native failures were raised by MPI already
  int remaining = count;
  std::vector<MPI_Request> natives;  // blocking: the pending native requests...
  std::vector<int> native_index;     // ...and where they are in `requests`
  std::vector<int> which;            // block_some()'s answers, by native
  std::vector<MPI_Status> native_statuses;
  std::vector<int> native_errors;
  for (Backoff backoff; remaining > 0;) {
    std::unique_lock<mcm::engine::FairLock> lock(process_engine().lock());
    const bool blocking = process_engine().blocking();
    // Blocking waits leave the native requests to block_some() (one PMPI_Waitsome):
    // each PMPI_Test is a turn of MPI's progress engine.
    const bool test_natives = !blocking;
    if (!blocking && process_engine().progress()) backoff.moved();
    auto finish = [&](size_t k, MPI_Comm comm) {
      done[k] = true;
      --remaining;
      backoff.moved();
      if (errors[k] != MPI_SUCCESS && !failed) failed_comm = comm;
      failed = failed || errors[k] != MPI_SUCCESS;
    };
    natives.clear();
    native_index.clear();
    for (int i = 0; i < count; ++i) {
      const size_t k = static_cast<size_t>(i);
      if (done[k]) continue;
      int flag = 0;
      MPI_Comm comm = MPI_COMM_NULL;
      if (requests[i] == MPI_REQUEST_NULL) {
        // Done at once with an empty status; PMPI_Waitsome would skip it forever.
        if (statuses != MPI_STATUSES_IGNORE)
          mcm::engine::fill_empty_status(mcm::engine::pmpi_native(), &statuses[i]);
        flag = 1;
      } else if (process_engine().owns(requests[i])) {
        flag = test_ours(&requests[i], at(statuses, i), &errors[k], &comm);
      } else if (test_natives || process_engine().native_persistent(requests[i])) {
        errors[k] = PMPI_Test(&requests[i], &flag, at(statuses, i));
        flag = flag || errors[k] != MPI_SUCCESS;
      }
      if (flag) {
        finish(k, comm);
      } else if (blocking && !process_engine().owns(requests[i])) {
        natives.push_back(requests[i]);
        native_index.push_back(i);
      }
    }
    if (remaining == 0) continue;
    if (!blocking) {
      lock.unlock();
      backoff.idle();
      continue;
    }
    which.resize(natives.size());
    native_statuses.resize(natives.size());
    native_errors.resize(natives.size());
    const int completed =
        process_engine().block_some(natives.data(), static_cast<int>(natives.size()), which.data(),
                                    native_statuses.data(), native_errors.data());
    for (int m = 0; m < completed; ++m) {
      const size_t j = static_cast<size_t>(which[static_cast<size_t>(m)]);
      const int i = native_index[j];
      requests[i] = natives[j];
      if (statuses != MPI_STATUSES_IGNORE) statuses[i] = native_statuses[j];
      errors[static_cast<size_t>(i)] = native_errors[j];
      finish(static_cast<size_t>(i), MPI_COMM_NULL);
    }
  }
  if (!failed) return MPI_SUCCESS;
  if (statuses != MPI_STATUSES_IGNORE)
    for (int i = 0; i < count; ++i) statuses[i].MPI_ERROR = errors[static_cast<size_t>(i)];
  return raise(failed_comm, MPI_ERR_IN_STATUS);
}

/// Blocking waits (mode adaptive): blocks in MPI until the engine moved or one of the
/// native requests of `requests` completed; returns that one's index (updated in
/// `requests`, its status and error stored), or -1.
int block_on_natives(int count, MPI_Request requests[], MPI_Status* status, int* error) {
  std::vector<MPI_Request> natives;
  std::vector<int> where;
  for (int i = 0; i < count; ++i) {
    if (requests[i] == MPI_REQUEST_NULL || process_engine().owns(requests[i])) continue;
    natives.push_back(requests[i]);
    where.push_back(i);
  }
  const int j =
      process_engine().block(natives.data(), static_cast<int>(natives.size()), status, error);
  if (j < 0) return -1;
  const int i = where[static_cast<size_t>(j)];
  requests[i] = natives[static_cast<size_t>(j)];
  return i;
}

/// One idle turn of the Waitany/Waitsome loops: blocks in MPI (Engine::blocking()) and
/// returns the index of a native request that completed there, or sleeps a little (-1).
int idle_turn(Backoff& backoff, int count, MPI_Request requests[], MPI_Status* done, int* error) {
  if (!process_engine().blocking()) {
    backoff.idle();
    return -1;
  }
  Lock lock(process_engine().lock());
  return block_on_natives(count, requests, done, error);
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  if (!engine_on()) return PMPI_Waitany(count, requests, index, status);
  for (Backoff backoff;;) {
    int flag = 0;
    const int rc = testany(count, requests, index, &flag, status);
    if (flag || rc != MPI_SUCCESS) return rc;
    int error = MPI_SUCCESS;
    MPI_Status done;
    const int i = idle_turn(backoff, count, requests, &done, &error);
    if (i < 0) continue;
    *index = i;
    if (status != MPI_STATUS_IGNORE) *status = done;
    return error;
  }
}

int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
  if (!engine_on()) return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
  for (Backoff backoff;;) {
    const int rc = testsome(incount, requests, outcount, indices, statuses);
    if (*outcount != 0 || rc != MPI_SUCCESS) return rc;
    int error = MPI_SUCCESS;
    MPI_Status done;
    const int i = idle_turn(backoff, incount, requests, &done, &error);
    if (i < 0) continue;
    *outcount = 1;
    indices[0] = i;
    if (statuses != MPI_STATUSES_IGNORE) {
      statuses[0] = done;
      statuses[0].MPI_ERROR = error;
    }
    return error == MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_IN_STATUS;
  }
}

int MPI_Request_free(MPI_Request* request) {
  mcm::shim::recorder::forget(*request);  // a persistent send's handle may be reused
  if (!engine_on() || *request == MPI_REQUEST_NULL) return PMPI_Request_free(request);
  Lock lock(process_engine().lock());
  process_engine().forget_native_persistent(*request);
  if (!process_engine().owns(*request)) return PMPI_Request_free(request);
  process_engine().free(request);
  return MPI_SUCCESS;
}

int MPI_Cancel(MPI_Request* request) {
  if (!engine_on() || *request == MPI_REQUEST_NULL) return PMPI_Cancel(request);
  Lock lock(process_engine().lock());
  if (!process_engine().owns(*request)) return PMPI_Cancel(request);
  process_engine().cancel(*request);
  return MPI_SUCCESS;
}

int MPI_Start(MPI_Request* request) {
  const MPI_Request started = *request;
  int rc = MPI_SUCCESS;
  if (!engine_on() || started == MPI_REQUEST_NULL) {
    rc = PMPI_Start(request);
  } else {
    Lock lock(process_engine().lock());
    if (!process_engine().owns(started))
      rc = PMPI_Start(request);
    else
      process_engine().start_persistent(started);
  }
  return mcm::shim::recorder::counted_start(rc, started);
}

// One MPI_Start per request, so that each started persistent send is counted (record).
int MPI_Startall(int count, MPI_Request requests[]) {
  for (int i = 0; i < count; ++i) {
    const int rc = MPI_Start(&requests[i]);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
}

// A test is a poll: a thread that does nothing but poll is paced (PollPacing).
int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  if (!engine_on()) return PMPI_Test(request, flag, status);
  const int rc = test(request, flag, status);
  PollPacing::polled(*flag != 0);
  return rc;
}

int MPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  if (!engine_on() || request == MPI_REQUEST_NULL)
    return PMPI_Request_get_status(request, flag, status);
  const int rc = request_get_status(request, flag, status);
  PollPacing::polled(*flag != 0);
  return rc;
}

int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  if (!engine_on()) return PMPI_Testall(count, requests, flag, statuses);
  const int rc = testall(count, requests, flag, statuses);
  PollPacing::polled(*flag != 0);
  return rc;
}

int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  if (!engine_on()) return PMPI_Testany(count, requests, index, flag, status);
  const int rc = testany(count, requests, index, flag, status);
  PollPacing::polled(*flag != 0);
  return rc;
}

int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[],
                 MPI_Status statuses[]) {
  if (!engine_on()) return PMPI_Testsome(incount, requests, outcount, indices, statuses);
  const int rc = testsome(incount, requests, outcount, indices, statuses);
  PollPacing::polled(*outcount != 0);
  return rc;
}

}  // extern "C"
