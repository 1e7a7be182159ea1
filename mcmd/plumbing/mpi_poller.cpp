#include "plumbing/mpi_poller.h"

#include <algorithm>

namespace mcm::daemon {

MpiPoller::MpiPoller(boost::asio::io_context& io, Transport& transport,
                     std::chrono::microseconds max_sleep,
                     std::chrono::microseconds waiting_max_sleep)
    : timer_(io),
      transport_(transport),
      max_sleep_(std::max(max_sleep, min_sleep_)),
      waiting_max_sleep_(std::clamp(waiting_max_sleep, min_sleep_, max_sleep_)),
      sleep_(min_sleep_) {}

void MpiPoller::watch(MPI_Request request, Handler on_complete, Pace pace) {
  requests_.push_back(request);
  handlers_.push_back(std::move(on_complete));
  urgent_.push_back(pace == Pace::urgent);
  if (pace == Pace::urgent) {
    ++urgent_count_;
    sleep_ = min_sleep_;
  }
  start();
}

void MpiPoller::set_activity(Activity activity) {
  activity_ = std::move(activity);
  sleep_ = min_sleep_;
  start();
}

void MpiPoller::start() {
  if (!scheduled_ && (!requests_.empty() || activity_)) schedule();
}

void MpiPoller::schedule() {
  scheduled_ = true;
  const std::uint64_t generation = ++generation_;
  timer_.expires_after(sleep_);
  timer_.async_wait([this, generation](const boost::system::error_code& ec) {
    if (generation != generation_) return;  // superseded by wake()
    scheduled_ = false;
    if (!ec) poll();
  });
}

void MpiPoller::wake() {
  sleep_ = min_sleep_;
  if (scheduled_) {
    ++generation_;
    scheduled_ = false;
    timer_.cancel();
  }
  poll(/*rang=*/true);
}

void MpiPoller::poll(bool rang) {
  ++polls_;
  if (rang) ++rung_polls_;
  const int n = static_cast<int>(requests_.size());
  done_.resize(requests_.size());
  statuses_.resize(requests_.size());
  int count = 0;
  if (n > 0) count = transport_.testsome(n, requests_.data(), done_.data(), statuses_.data());
  bool completed = false;  // an urgent request completed
  if (count != MPI_UNDEFINED && count > 0) {
    // Detach the finished handlers first: a handler may watch() new requests.
    std::vector<std::pair<Handler, MPI_Status>> finished;
    for (int i = 0; i < count; ++i) {
      const auto index = static_cast<size_t>(done_[static_cast<size_t>(i)]);
      if (urgent_[index]) {
        completed = true;
        --urgent_count_;
      }
      finished.emplace_back(std::move(handlers_[index]), statuses_[static_cast<size_t>(i)]);
    }
    size_t keep = 0;  // compact in one pass, keeping the order
    for (size_t i = 0; i < requests_.size(); ++i) {
      if (requests_[i] == MPI_REQUEST_NULL) continue;
      requests_[keep] = requests_[i];
      handlers_[keep] = std::move(handlers_[i]);
      urgent_[keep] = urgent_[i];
      ++keep;
    }
    requests_.resize(keep);
    handlers_.resize(keep);
    urgent_.resize(keep);
    for (auto& [handler, status] : finished) handler(status);
  }
  // Copied: the activity may replace or clear itself.
  const Progress progress = activity_ ? Activity(activity_)(rang) : Progress::idle;
  if (completed || progress == Progress::moved) {
    sleep_ = min_sleep_;
  } else if (progress == Progress::waiting || urgent_count_ > 0) {
    sleep_ = std::min(sleep_ * 2, waiting_max_sleep_);
  } else if (progress == Progress::expecting) {
    sleep_ = std::min(sleep_ * 2, max_sleep_);
  } else {
    sleep_ = max_sleep_;  // idle: the next message rings (see the header)
  }
  start();
}

}  // namespace mcm::daemon
