// The ACK rule on the receiving side (mcm/protocol/runtime_messages.h rule 1): reports of messages
// the application waited for, batched per source VM and sent to that VM's daemon.
//
// add() queues one record; a batch leaves (issend, then a ring of the daemon's
// doorbell: an idle daemon sleeps until something rings) when it holds kLateReportBatch records.
// poll() sends batches whose oldest record is kLateReportDelay old and completes finished sends;
// drain() sends everything and waits until every batch was matched by its daemon (before
// the rank tells its daemon it finalizes: the daemons count every ACK). Not thread-safe:
// the engine lock is held by callers.
#pragma once

#include <mpi.h>

#include <memory>
#include <vector>

#include "mcm/bootstrap.h"
#include "mcm/doorbell.h"
#include "mcm/protocol/runtime_messages.h"
#include "mcm/transport.h"

namespace mcm::engine {

class LateArrivals {
 public:
  /// `bell` (kept by reference) rings the daemons a batch is sent to.
  /// Every MPI call goes through `transport` (kept by reference).
  void start(const mcm::Layout& layout, const mcm::Doorbell& bell, Transport& transport);
  void add(const protocol::LateArrival& record, double now);
  void poll(double now);
  void drain();
  std::uint64_t sent() const { return sent_; }

 private:
  struct Batch {
    std::vector<protocol::LateArrival> records;
    double oldest = 0;
  };
  void send(int vm);
  void complete();

  const mcm::Layout* layout_ = nullptr;
  const mcm::Doorbell* bell_ = nullptr;
  Transport* transport_ = nullptr;
  std::vector<Batch> batches_;  ///< by source VM
  std::size_t queued_ = 0;
  std::vector<MPI_Request> requests_;
  std::vector<std::unique_ptr<std::vector<protocol::LateArrival>>> buffers_;  ///< beside requests_
  std::uint64_t sent_ = 0;
};

}  // namespace mcm::engine
