// An in-memory MPI for unit tests (mcm/transport.h): a FakeNetwork holds the messages of
// a made-up job, and each FakeTransport is one process's view of it, so that the relay,
// the runtime, the clock offsets and the engine's frame path run without MPI, root or a
// testbed.
//
// Semantics, as MPI's on one communicator: messages between one pair are matched in the
// order they were sent; a message matches the oldest posted receive that accepts it,
// else waits (unmatched, "with its sender") until a probe or receive takes it; isend and
// send complete at once (eager, the data is copied), issend only once the message was
// matched; imrecv and mrecv complete at once. ibarrier completes when every rank of the
// communicator entered it; recv and allreduce_sum block (use one thread per process) and
// throw after `timeout` instead of hanging a test. Handles (requests, messages,
// communicators) are made-up values that must never reach real MPI. A completed
// receive's size travels in its status's MPI_ERROR (received_bytes() reads it there).
// A communicator's wire can be held (hold_wire()): its messages are then sent but not
// arrived, in order per pair, until the test lets the next one arrive (arrive_next()).
// Thread-safe: one lock for the whole network.
#pragma once

#include <mpi.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <vector>

#include "mcm/transport.h"

namespace mcm::testing {

/// What a test can see of a message that waits unmatched.
struct WaitingMessage {
  MPI_Comm comm = MPI_COMM_NULL;
  int source = -1;
  int destination = -1;
  int tag = -1;
  std::vector<char> data;
  bool synchronous = false;
};

class FakeNetwork {
 public:
  explicit FakeNetwork(std::chrono::milliseconds timeout = std::chrono::seconds(10))
      : timeout_(timeout) {}

  /// A new communicator of `size` ranks.
  MPI_Comm add_comm(int size);

  /// The messages to `destination` of `comm` (any: -1) that wait unmatched, oldest first.
  std::vector<WaitingMessage> waiting(MPI_Comm comm, int destination = -1) const;

  /// From now on, messages sent on `comm` stay on its wire until arrive_next() (a
  /// synchronous send does not complete before).
  void hold_wire(MPI_Comm comm);
  /// The oldest message on `comm`'s wire from `source` to `destination` arrives: it
  /// matches a posted receive or waits unmatched. False when none is on the wire.
  bool arrive_next(MPI_Comm comm, int source, int destination);
  /// Messages on `comm`'s wire from `source` to `destination`.
  std::size_t on_wire(MPI_Comm comm, int source, int destination) const;

 private:
  friend class FakeTransport;
  struct Message {
    WaitingMessage m;
    std::uint64_t sender_request = 0;  ///< issend's, completed on the match; 0: none
  };
  struct Request {
    bool complete = false;
    MPI_Status status{};
    // A posted receive (listed in posted_ until matched):
    MPI_Comm comm = MPI_COMM_NULL;
    int owner = -1;  ///< the receiver's rank in comm
    int source = MPI_ANY_SOURCE;
    int tag = MPI_ANY_TAG;
    void* buffer = nullptr;
    int capacity = 0;
  };
  struct Collective {  ///< one ibarrier or allreduce in progress on a communicator
    int arrived = 0;
    std::uint64_t generation = 0;
    std::vector<std::uint64_t> barrier_requests;
    std::vector<double> sum, result;
  };

  std::uint64_t new_request(bool complete);
  /// Delivers `message` to the oldest matching posted receive, else queues it.
  void deliver(Message message);
  void complete_receive(Request& r, const WaitingMessage& m);
  void complete_request(std::uint64_t id);
  static bool accepts(int want_source, int want_tag, const WaitingMessage& m);

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::chrono::milliseconds timeout_;
  std::map<MPI_Comm, int> sizes_;
  std::deque<Message> unmatched_;
  std::map<MPI_Comm, std::deque<Message>> wires_;  ///< held wires, oldest first
  std::map<std::uint64_t, Request> requests_;
  std::vector<std::uint64_t> posted_;           ///< posted receives, oldest first
  std::map<std::uint64_t, Message> probed_;     ///< matched by improbe, not yet received
  std::map<MPI_Comm, Collective> collectives_;  ///< at most one of each at a time
  std::uint64_t next_id_ = 1000;
};

class FakeTransport final : public Transport {
 public:
  /// The process that is rank `ranks[comm]` of each communicator it belongs to.
  FakeTransport(FakeNetwork& network, std::map<MPI_Comm, int> ranks)
      : network_(network), ranks_(std::move(ranks)) {}

  void isend(const void* data, int bytes, int destination, int tag, MPI_Comm comm,
             MPI_Request* request) override;
  void issend(const void* data, int bytes, int destination, int tag, MPI_Comm comm,
              MPI_Request* request) override;
  void irecv(void* data, int bytes, int source, int tag, MPI_Comm comm,
             MPI_Request* request) override;
  bool iprobe(int source, int tag, MPI_Comm comm) override;
  std::optional<Probed> improbe(int source, int tag, MPI_Comm comm, MPI_Message* message) override;
  void mrecv(void* data, int bytes, MPI_Message* message) override;
  void imrecv(void* data, int bytes, MPI_Message* message, MPI_Request* request) override;
  void ibarrier(MPI_Comm comm, MPI_Request* request) override;
  int testsome(int count, MPI_Request* requests, int* done, MPI_Status* statuses) override;
  bool test(MPI_Request* request, MPI_Status* status) override;
  int received_bytes(const MPI_Status& status) override { return status.MPI_ERROR; }
  void cancel_receive(MPI_Request* request) override;
  /// Not in Transport (engine/native_mpi.h's cancel_receive()): cancels a receive not
  /// matched yet (true), or takes the completed one into `*status` (false).
  bool cancel_or_take(MPI_Request* request, MPI_Status* status);
  void send(const void* data, int bytes, int destination, int tag, MPI_Comm comm) override;
  Probed recv(void* data, int bytes, int source, int tag, MPI_Comm comm) override;
  void allreduce_sum(double* values, int count, MPI_Comm comm) override;
  int rank(MPI_Comm comm) override { return ranks_.at(comm); }

 private:
  void post_send(const void* data, int bytes, int destination, int tag, MPI_Comm comm,
                 MPI_Request* request, bool synchronous);
  /// Takes the completed request `*request` (then MPI_REQUEST_NULL) into `status`. The
  /// caller holds the network's lock.
  bool take_if_complete(MPI_Request* request, MPI_Status* status);

  FakeNetwork& network_;
  std::map<MPI_Comm, int> ranks_;
};

}  // namespace mcm::testing
