// The reports a rank's receives send, through its own VM's daemon, to the messages' source
// daemons: the ACK rule (mcm/protocol/runtime_messages.h rule 1), reports of messages the
// application waited for, batched per source VM; and the receive waits (rule 5), per
// source VM and period.
//
// add() queues one late report; a batch leaves (issend to this VM's daemon, then a ring of
// its doorbell: an idle daemon sleeps until something rings) when it holds kLateReportBatch
// records. add_receive() counts a received message and its wait into the period's
// ReceiveWaits of its VM, and sends the period's waits (issend, no ring) once it has lasted
// kWaitPeriod, as poll() does too. poll() sends batches whose oldest record is
// kLateReportDelay old and, every kCompleteInterval, completes finished sends; drain() sends
// everything and waits until every message was matched by this VM's daemon (before the rank tells
// it that it finalizes: the daemons count every ACK, mcmd/runtime/report_forwarder.h). Not
// thread-safe: the engine lock is held by callers.
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
  /// `bell` (kept by reference) rings this VM's daemon when a batch is sent.
  /// Every MPI call goes through `transport` (kept by reference).
  void start(const mcm::Layout& layout, const mcm::Doorbell& bell, Transport& transport);
  void add(const protocol::LateArrival& record, double now);
  /// A message of `source_vm` (another VM's) received, as a frame or natively; the
  /// application waited `waited_s` for it (<= 0: it was there first).
  void add_receive(int source_vm, double waited_s, double now);
  /// When a message arrived before now from `source_vm` (a world rank's VM) and its payload:
  /// what a late report names as the message ahead (runtime_messages.h rule 2).
  struct Ahead {
    double t = 0;  ///< 0: none
    std::uint64_t bytes = 0;
  };
  /// A message of `source_vm` reached this rank at `t` (this VM's clock) with `bytes` of
  /// payload; returns the one that reached it before from the same VM.
  Ahead arrived(int source_vm, double t, std::uint64_t bytes);
  void poll(double now);
  void drain(double now);
  std::uint64_t sent() const { return sent_; }

 private:
  struct Batch {
    std::vector<protocol::LateArrival> records;
    double oldest = 0;
  };
  void send(int vm);
  void send_waits(double now);
  /// Sends the period's waits when it has lasted kWaitPeriod; whether it did.
  bool end_period_if_due(double now);
  /// Sends `bytes` of `buffer` (kept until matched) to `daemon` with `tag`.
  void issend(std::shared_ptr<const void> buffer, const void* data, std::size_t bytes, int daemon,
              int tag);
  /// Forgets the sends the daemon matched (one MPI call).
  void complete();
  /// Seconds between poll()'s completions.
  static constexpr double kCompleteInterval = 0.01;

  const mcm::Layout* layout_ = nullptr;
  const mcm::Doorbell* bell_ = nullptr;
  Transport* transport_ = nullptr;
  std::vector<Batch> batches_;  ///< by source VM
  std::size_t queued_ = 0;
  std::vector<protocol::ReceiveWaits> waits_;  ///< by source VM, this period's
  std::vector<double> first_;                  ///< by source VM, its period's first message
  std::vector<Ahead> last_arrival_;            ///< by source VM
  double period_end_ = 0;                      ///< 0: no message counted yet
  std::vector<MPI_Request> requests_;
  std::vector<std::shared_ptr<const void>> buffers_;  ///< beside requests_
  std::vector<int> done_;                             ///< complete()'s indices
  double last_complete_ = 0;                          ///< poll()'s last complete()
  std::uint64_t sent_ = 0;
};

}  // namespace mcm::engine
