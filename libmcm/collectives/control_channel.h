// The notes of the schedule agreement (schedule_agreement.h) between application ranks:
// a private duplicate of the application world, one posted receive, small sends kept
// until MPI completed them. The engine waits on the receive and polls the channel
// (engine/side_channel.h), so a rank answers from every engine wait and, through the
// progress hook, from inside a native collective.
//
// Contract: start() is collective over the application world (MPI_Init); stop() is not
// (MPI_Finalize: cancels the receive, completes the sends, frees the duplicate). Notes
// are sent and delivered with world ranks; every call with the engine lock held.
#pragma once

#include <mpi.h>

#include <deque>
#include <functional>
#include <memory>
#include <unordered_map>
#include <vector>

#include "collectives/schedule_agreement.h"
#include "engine/side_channel.h"

namespace mcm::collectives {

class ControlChannel : public engine::SideChannel {
 public:
  using Deliver = std::function<void(int from_world_rank, const Note&)>;

  void start(MPI_Comm app_world, const std::vector<int>& world_rank_of_app_rank, Deliver deliver);
  void stop();
  void send(int world_rank, const Note& note);

  MPI_Request request() const override { return receive_; }
  void completed(const MPI_Status& status) override;
  bool poll() override;

 private:
  static constexpr int kTag = 1;
  static constexpr double kPollInterval = 0.5e-3;  ///< seconds between poll()'s tests
  double last_poll_ = 0;
  void post();
  void take(const MPI_Status& status);

  MPI_Comm comm_ = MPI_COMM_NULL;
  Deliver deliver_;
  std::vector<int> world_of_app_;
  std::unordered_map<int, int> app_of_world_;
  Note incoming_;
  MPI_Request receive_ = MPI_REQUEST_NULL;
  struct Outgoing {
    MPI_Request request = MPI_REQUEST_NULL;
    std::unique_ptr<Note> note;  ///< stays where MPI reads it until the send completes
  };
  std::deque<Outgoing> outgoing_;
};

}  // namespace mcm::collectives
