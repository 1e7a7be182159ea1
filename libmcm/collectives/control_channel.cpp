#include "collectives/control_channel.h"

#include "mcm/clock.h"

namespace mcm::collectives {

void ControlChannel::start(MPI_Comm app_world, const std::vector<int>& world_rank_of_app_rank,
                           Deliver deliver) {
  PMPI_Comm_dup(app_world, &comm_);
  PMPI_Comm_set_name(comm_, "mcm collectives control");
  deliver_ = std::move(deliver);
  world_of_app_ = world_rank_of_app_rank;
  for (std::size_t r = 0; r < world_of_app_.size(); ++r)
    app_of_world_[world_of_app_[r]] = static_cast<int>(r);
  post();
}

void ControlChannel::stop() {
  if (comm_ == MPI_COMM_NULL) return;
  if (receive_ != MPI_REQUEST_NULL) {
    PMPI_Cancel(&receive_);
    PMPI_Wait(&receive_, MPI_STATUS_IGNORE);
  }
  for (Outgoing& o : outgoing_) PMPI_Wait(&o.request, MPI_STATUS_IGNORE);  // eager: local
  outgoing_.clear();
  PMPI_Comm_free(&comm_);
}

void ControlChannel::post() {
  PMPI_Irecv(&incoming_, sizeof incoming_, MPI_BYTE, MPI_ANY_SOURCE, kTag, comm_, &receive_);
}

void ControlChannel::send(int world_rank, const Note& note) {
  const auto to = app_of_world_.find(world_rank);
  if (to == app_of_world_.end() || comm_ == MPI_COMM_NULL) return;  // not an application rank
  Outgoing o;
  o.note = std::make_unique<Note>(note);
  PMPI_Isend(o.note.get(), sizeof(Note), MPI_BYTE, to->second, kTag, comm_, &o.request);
  outgoing_.push_back(std::move(o));
}

void ControlChannel::take(const MPI_Status& status) {
  const Note note = incoming_;
  const int from = status.MPI_SOURCE;
  post();  // before delivering: what the delivery sends may be answered at once
  if (from >= 0 && static_cast<std::size_t>(from) < world_of_app_.size())
    deliver_(world_of_app_[static_cast<std::size_t>(from)], note);
}

void ControlChannel::completed(const MPI_Status& status) {
  receive_ = MPI_REQUEST_NULL;  // MPI freed it in the wait
  take(status);
}

bool ControlChannel::poll() {
  // Each PMPI_Test turns Open MPI's progress engine (microseconds): at most one a
  // kPollInterval, the engine's waits wake for the receive anyway.
  const double now = mcm::wall_seconds();
  if (now - last_poll_ < kPollInterval) return false;
  last_poll_ = now;
  bool moved = false;
  while (!outgoing_.empty()) {  // sends complete in order: the oldest first
    int done = 0;
    PMPI_Test(&outgoing_.front().request, &done, MPI_STATUS_IGNORE);
    if (!done) break;
    outgoing_.pop_front();
  }
  for (int flag = 1; flag && receive_ != MPI_REQUEST_NULL;) {
    MPI_Status status;
    PMPI_Test(&receive_, &flag, &status);
    if (flag) {
      take(status);
      moved = true;
    }
  }
  return moved;
}

}  // namespace mcm::collectives
