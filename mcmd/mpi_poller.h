// Drives MPI progress from the daemon's Asio event loop without burning a core.
//
// Contract: poll() is called by a steady_timer; each call tests the outstanding MPI
// requests once (PMPI_Testsome) and runs the completion handlers of those that finished.
// The delay before the next poll starts at min_sleep after any completion and doubles on
// every idle poll up to max_sleep, so an idle daemon wakes about 1/max_sleep times a
// second, while a busy one polls back to back. Not thread-safe: one event loop thread.
#pragma once

#include <mpi.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <functional>
#include <vector>

namespace mcm::daemon {

class MpiPoller {
 public:
  using Handler = std::function<void(const MPI_Status&)>;

  MpiPoller(boost::asio::io_context& io, std::chrono::microseconds max_sleep);

  /// Watches `request`; `on_complete` runs in the event loop once it completes.
  void watch(MPI_Request request, Handler on_complete);

  /// Starts polling (idempotent). Stops by itself when nothing is watched.
  void start();

  std::size_t outstanding() const { return requests_.size(); }

 private:
  void poll();
  void schedule();

  boost::asio::steady_timer timer_;
  std::chrono::microseconds min_sleep_{20};
  std::chrono::microseconds max_sleep_;
  std::chrono::microseconds sleep_;
  bool scheduled_ = false;
  std::vector<MPI_Request> requests_;
  std::vector<Handler> handlers_;
};

}  // namespace mcm::daemon
