// The engine's MPI calls as MPI makes them (engine/native_mpi.h).
#include "engine/native_mpi.h"

#include "engine/status.h"
#include "mcm/progress_scopes.h"

namespace mcm::engine {
namespace {

// Generalized-request callbacks. The wrappers never let MPI complete our requests on
// its own, so these only matter if a request reaches MPI through a path we do not
// intercept: then the status is the one the engine recorded.
int query_status(void* extra, MPI_Status* status) {
  fill_status(pmpi_native(), status, *static_cast<const Op*>(extra));
  return MPI_SUCCESS;
}
int free_nothing(void*) {
  return MPI_SUCCESS;
}
int cancel_nothing(void*, int) {
  return MPI_SUCCESS;
}

class PmpiNative final : public NativeMpi {
 public:
  int isend(SendMode mode, const void* buf, int count, MPI_Datatype type, int peer, int tag,
            MPI_Comm comm, MPI_Request* request) override {
    static int (*const call[])(const void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*) = {
        PMPI_Isend, PMPI_Ibsend, PMPI_Issend, PMPI_Irsend};  // by SendMode
    return call[static_cast<int>(mode)](buf, count, type, peer, tag, comm, request);
  }
  int irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
            MPI_Request* request) override {
    return PMPI_Irecv(buf, count, type, source, tag, comm, request);
  }
  int iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) override {
    return PMPI_Iprobe(source, tag, comm, flag, status);
  }
  int improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message,
              MPI_Status* status) override {
    return PMPI_Improbe(source, tag, comm, flag, message, status);
  }
  int imrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message,
             MPI_Request* request) override {
    return PMPI_Imrecv(buf, count, type, message, request);
  }
  // The waits run MPI's event loop even inside a NoEventLoop scope (mcm/progress_scopes.h).
  bool cancel_receive(MPI_Request* request, MPI_Status* status, int* error) override {
    const mcm::EventLoopOn events;
    PMPI_Cancel(request);
    *error = PMPI_Wait(request, status);
    int cancelled = 0;
    PMPI_Test_cancelled(status, &cancelled);
    return cancelled != 0;
  }
  int testsome(int n, MPI_Request* requests, int* outcount, int* indices,
               MPI_Status* statuses) override {
    return PMPI_Testsome(n, requests, outcount, indices, statuses);
  }
  int waitany(int n, MPI_Request* requests, int* index, MPI_Status* status) override {
    const mcm::EventLoopOn events;
    return PMPI_Waitany(n, requests, index, status);
  }
  int waitsome(int n, MPI_Request* requests, int* outcount, int* indices,
               MPI_Status* statuses) override {
    const mcm::EventLoopOn events;
    return PMPI_Waitsome(n, requests, outcount, indices, statuses);
  }
  int received_bytes(const MPI_Status& status) override {
    int bytes = 0;
    PMPI_Get_count(&status, MPI_BYTE, &bytes);
    return bytes;
  }
  void grequest_start(Op* op, MPI_Request* request) override {
    PMPI_Grequest_start(query_status, free_nothing, cancel_nothing, op, request);
  }
  void grequest_complete(MPI_Request request) override { PMPI_Grequest_complete(request); }
  void request_free(MPI_Request* request) override { PMPI_Request_free(request); }
  void set_status(MPI_Status* s, int source, int tag, int error, MPI_Count bytes,
                  bool cancelled) override {
    s->MPI_SOURCE = source;
    s->MPI_TAG = tag;
    s->MPI_ERROR = error;
    PMPI_Status_set_elements_x(s, MPI_BYTE, bytes);
    PMPI_Status_set_cancelled(s, cancelled ? 1 : 0);
  }
  Layout1D describe(const void* buf, int count, MPI_Datatype type) override {
    return engine::describe(buf, count, type);
  }
  std::vector<char> pack(const void* buf, int count, MPI_Datatype type) override {
    return engine::pack(buf, count, type);
  }
  void unpack(const char* data, std::size_t bytes, void* buf, int count, MPI_Datatype type,
              MPI_Comm self) override {
    engine::unpack(data, bytes, buf, count, type, self);
  }
};

}  // namespace

NativeMpi& pmpi_native() {
  static PmpiNative mpi;
  return mpi;
}

}  // namespace mcm::engine
