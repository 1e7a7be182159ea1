#include "mcm/progress_scopes.h"
#include "mcm/transport.h"

namespace mcm {
namespace {

class MpiTransport final : public Transport {
 public:
  /// What `status` says of a matched or received message.
  Probed probed(const MPI_Status& status) {
    return Probed{status.MPI_SOURCE, status.MPI_TAG, received_bytes(status)};
  }

  void isend(const void* data, int bytes, int destination, int tag, MPI_Comm comm,
             MPI_Request* request) override {
    PMPI_Isend(data, bytes, MPI_BYTE, destination, tag, comm, request);
  }
  void issend(const void* data, int bytes, int destination, int tag, MPI_Comm comm,
              MPI_Request* request) override {
    PMPI_Issend(data, bytes, MPI_BYTE, destination, tag, comm, request);
  }
  void irecv(void* data, int bytes, int source, int tag, MPI_Comm comm,
             MPI_Request* request) override {
    PMPI_Irecv(data, bytes, MPI_BYTE, source, tag, comm, request);
  }
  bool iprobe(int source, int tag, MPI_Comm comm) override {
    int found = 0;
    PMPI_Iprobe(source, tag, comm, &found, MPI_STATUS_IGNORE);
    return found != 0;
  }
  std::optional<Probed> improbe(int source, int tag, MPI_Comm comm, MPI_Message* message) override {
    int found = 0;
    MPI_Status status;
    PMPI_Improbe(source, tag, comm, &found, message, &status);
    if (!found) return std::nullopt;
    return probed(status);
  }
  // The blocking calls run MPI's event loop even inside a NoEventLoop scope
  // (mcm/progress_scopes.h): a probed or matched message's bytes may still be arriving.
  void mrecv(void* data, int bytes, MPI_Message* message) override {
    const EventLoopOn events;
    PMPI_Mrecv(data, bytes, MPI_BYTE, message, MPI_STATUS_IGNORE);
  }
  void imrecv(void* data, int bytes, MPI_Message* message, MPI_Request* request) override {
    PMPI_Imrecv(data, bytes, MPI_BYTE, message, request);
  }
  void ibarrier(MPI_Comm comm, MPI_Request* request) override { PMPI_Ibarrier(comm, request); }
  int testsome(int count, MPI_Request* requests, int* done, MPI_Status* statuses) override {
    int completed = 0;
    PMPI_Testsome(count, requests, &completed, done, statuses);
    return completed;
  }
  bool test(MPI_Request* request, MPI_Status* status) override {
    int done = 0;
    PMPI_Test(request, &done, status);
    return done != 0;
  }
  int received_bytes(const MPI_Status& status) override {
    int bytes = 0;
    PMPI_Get_count(&status, MPI_BYTE, &bytes);
    return bytes;
  }
  void cancel_receive(MPI_Request* request) override {
    const EventLoopOn events;
    PMPI_Cancel(request);
    PMPI_Wait(request, MPI_STATUS_IGNORE);
  }
  void send(const void* data, int bytes, int destination, int tag, MPI_Comm comm) override {
    const EventLoopOn events;
    PMPI_Send(data, bytes, MPI_BYTE, destination, tag, comm);
  }
  Probed recv(void* data, int bytes, int source, int tag, MPI_Comm comm) override {
    const EventLoopOn events;
    MPI_Status status;
    PMPI_Recv(data, bytes, MPI_BYTE, source, tag, comm, &status);
    return probed(status);
  }
  void allreduce_sum(double* values, int count, MPI_Comm comm) override {
    const EventLoopOn events;
    PMPI_Allreduce(MPI_IN_PLACE, values, count, MPI_DOUBLE, MPI_SUM, comm);
  }
  int rank(MPI_Comm comm) override {
    int r = -1;
    PMPI_Comm_rank(comm, &r);
    return r;
  }
};

}  // namespace

Transport& mpi_transport() {
  static MpiTransport transport;
  return transport;
}

}  // namespace mcm
