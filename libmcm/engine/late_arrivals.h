// The ACK rule on the receiving side (mcm/path_messages.h rule 1): reports of messages the
// application waited for, batched per source VM and sent to that VM's daemon.
//
// add() queues one record; a batch leaves (PMPI_Issend, then a ring of the daemon's
// doorbell: an idle daemon sleeps until something rings) when it holds kAckBatch records.
// poll() sends batches whose oldest record is kAckDelay old and completes finished sends;
// drain() sends everything and waits until every batch was matched by its daemon (before
// the rank tells its daemon it finalizes: the daemons count every ACK). Not thread-safe:
// the engine lock is held by callers.
#pragma once

#include <mpi.h>

#include <memory>
#include <vector>

#include "mcm/bootstrap.h"
#include "mcm/doorbell.h"
#include "mcm/path_messages.h"

namespace mcm::engine {

class LateArrivals {
 public:
  /// `bell` (kept by reference) rings the daemons a batch is sent to.
  void start(const mcm::Layout& layout, const mcm::Doorbell& bell);
  void add(const path::LateArrival& record, double now);
  void poll(double now);
  void drain();
  std::uint64_t sent() const { return sent_; }

 private:
  struct Batch {
    std::vector<path::LateArrival> records;
    double oldest = 0;
  };
  void send(int vm);
  void complete();

  const mcm::Layout* layout_ = nullptr;
  const mcm::Doorbell* bell_ = nullptr;
  std::vector<Batch> batches_;  ///< by source VM
  std::size_t queued_ = 0;
  std::vector<MPI_Request> requests_;
  std::vector<std::unique_ptr<std::vector<path::LateArrival>>> buffers_;  ///< beside requests_
  std::uint64_t sent_ = 0;
};

}  // namespace mcm::engine
