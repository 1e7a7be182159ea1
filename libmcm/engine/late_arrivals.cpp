#include "engine/late_arrivals.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace mcm::engine {

void LateArrivals::start(const mcm::Layout& layout, const mcm::Doorbell& bell,
                         Transport& transport) {
  layout_ = &layout;
  transport_ = &transport;
  bell_ = &bell;
  batches_.assign(static_cast<size_t>(layout.daemon_count), Batch{});
  waits_.assign(static_cast<size_t>(layout.daemon_count), protocol::ReceiveWaits{});
  first_.assign(waits_.size(), 0.0);
  last_arrival_.assign(waits_.size(), Ahead{});
  period_end_ = 0;
}

LateArrivals::Ahead LateArrivals::arrived(int source_vm, double t, std::uint64_t bytes) {
  if (source_vm < 0 || static_cast<size_t>(source_vm) >= last_arrival_.size()) return {};
  Ahead& last = last_arrival_[static_cast<size_t>(source_vm)];
  const Ahead before = last;
  if (t >= last.t) last = Ahead{t, bytes};  // an imprecise arrival may date before it
  return before;
}

void LateArrivals::add(const protocol::LateArrival& record, double now) {
  Batch& batch = batches_[static_cast<size_t>(record.source_vm)];
  if (batch.records.empty()) batch.oldest = now;
  batch.records.push_back(record);
  ++queued_;
  if (batch.records.size() >= static_cast<size_t>(protocol::kLateReportBatch))
    send(record.source_vm);
}

void LateArrivals::add_receive(int source_vm, double waited_s, double now) {
  if (source_vm < 0 || static_cast<size_t>(source_vm) >= waits_.size()) return;
  if (period_end_ == 0) period_end_ = now + protocol::kWaitPeriod;
  protocol::ReceiveWaits& w = waits_[static_cast<size_t>(source_vm)];
  if (w.messages == 0) first_[static_cast<size_t>(source_vm)] = now;
  ++w.messages;
  if (waited_s > 0) w.wait_s += waited_s;
  // Here too, not only in poll(): a rank whose receives are natives completed inside MPI
  // (Engine::block) reaches the engine's progress seldom, and its periods would last seconds.
  if (end_period_if_due(now)) complete();
}

bool LateArrivals::end_period_if_due(double now) {
  if (period_end_ == 0 || now < period_end_) return false;
  send_waits(now);
  return true;
}

void LateArrivals::send(int vm) {
  Batch& batch = batches_[static_cast<size_t>(vm)];
  if (batch.records.empty()) return;
  auto buffer = std::make_shared<std::vector<protocol::LateArrival>>(std::move(batch.records));
  batch.records.clear();
  queued_ -= buffer->size();
  sent_ += buffer->size();
  // Through this VM's daemon, which hands it on (runtime_messages.h rule 1).
  const int daemon = layout_->local_daemon;
  issend(buffer, buffer->data(), buffer->size() * sizeof(protocol::LateArrival), daemon,
         protocol::kTagLateReports);
  bell_->ring(layout_->doorbell_of_world_rank[static_cast<size_t>(daemon)]);
}

void LateArrivals::send_waits(double now) {
  for (std::size_t vm = 0; vm < waits_.size(); ++vm) {
    protocol::ReceiveWaits& w = waits_[vm];
    if (w.messages == 0) continue;
    w.source_vm = static_cast<std::int32_t>(vm);
    w.destination_vm = layout_->vm;
    w.t_end = now;
    const double span_us = std::round((now - first_[vm]) * 1e6);
    w.span_us = static_cast<std::uint32_t>(
        std::clamp(span_us, 0.0, double{std::numeric_limits<std::uint32_t>::max()}));
    auto buffer = std::make_shared<protocol::ReceiveWaits>(w);
    w = protocol::ReceiveWaits{};
    issend(buffer, buffer.get(), sizeof *buffer, layout_->local_daemon, protocol::kTagReceiveWaits);
  }
  period_end_ = 0;  // the next period starts with its first message
}

void LateArrivals::issend(std::shared_ptr<const void> buffer, const void* data, std::size_t bytes,
                          int daemon, int tag) {
  MPI_Request request;
  transport_->issend(data, static_cast<int>(bytes), daemon, tag, layout_->private_comm, &request);
  requests_.push_back(request);
  buffers_.push_back(std::move(buffer));
}

void LateArrivals::complete() {
  // One MPI call for all of them (each call is a turn of MPI's progress loop).
  done_.resize(requests_.size());
  const int count = transport_->testsome(static_cast<int>(requests_.size()), requests_.data(),
                                         done_.data(), MPI_STATUSES_IGNORE);
  if (count == MPI_UNDEFINED || count == 0) return;
  std::size_t keep = 0;
  for (std::size_t i = 0; i < requests_.size(); ++i) {
    if (requests_[i] == MPI_REQUEST_NULL) continue;  // completed (freed by MPI)
    requests_[keep] = requests_[i];
    buffers_[keep] = std::move(buffers_[i]);
    ++keep;
  }
  requests_.resize(keep);
  buffers_.resize(keep);
}

void LateArrivals::poll(double now) {
  if (queued_ > 0)
    for (std::size_t vm = 0; vm < batches_.size(); ++vm)
      if (!batches_[vm].records.empty() && now - batches_[vm].oldest >= protocol::kLateReportDelay)
        send(static_cast<int>(vm));
  end_period_if_due(now);
  // Completing only frees buffers: not at every engine turn (one turn per collective
  // call while the application waits in them).
  if (!requests_.empty() && now - last_complete_ >= kCompleteInterval) {
    last_complete_ = now;
    complete();
  }
}

void LateArrivals::drain(double now) {
  for (std::size_t vm = 0; vm < batches_.size(); ++vm) send(static_cast<int>(vm));
  if (period_end_ > 0) send_waits(now);
  while (!requests_.empty()) {
    complete();
    if (!requests_.empty()) ::usleep(50);  // the daemons poll; do not take their CPU
  }
}

}  // namespace mcm::engine
