#include "engine/late_arrivals.h"

#include <unistd.h>

namespace mcm::engine {

void LateArrivals::start(const mcm::Layout& layout, const mcm::Doorbell& bell,
                         Transport& transport) {
  layout_ = &layout;
  transport_ = &transport;
  bell_ = &bell;
  batches_.assign(static_cast<size_t>(layout.daemon_count), Batch{});
}

void LateArrivals::add(const protocol::LateArrival& record, double now) {
  Batch& batch = batches_[static_cast<size_t>(record.source_vm)];
  if (batch.records.empty()) batch.oldest = now;
  batch.records.push_back(record);
  ++queued_;
  if (batch.records.size() >= static_cast<size_t>(protocol::kLateReportBatch))
    send(record.source_vm);
}

void LateArrivals::send(int vm) {
  Batch& batch = batches_[static_cast<size_t>(vm)];
  if (batch.records.empty()) return;
  auto buffer = std::make_unique<std::vector<protocol::LateArrival>>(std::move(batch.records));
  batch.records.clear();
  queued_ -= buffer->size();
  sent_ += buffer->size();
  MPI_Request request;
  const int daemon = layout_->daemon_of_vm[static_cast<size_t>(vm)];
  transport_->issend(buffer->data(),
                     static_cast<int>(buffer->size() * sizeof(protocol::LateArrival)), daemon,
                     protocol::kTagLateReports, layout_->private_comm, &request);
  bell_->ring(layout_->doorbell_of_world_rank[static_cast<size_t>(daemon)]);
  requests_.push_back(request);
  buffers_.push_back(std::move(buffer));
}

void LateArrivals::complete() {
  std::size_t keep = 0;
  for (std::size_t i = 0; i < requests_.size(); ++i) {
    if (transport_->test(&requests_[i], MPI_STATUS_IGNORE)) continue;
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
  if (!requests_.empty()) complete();
}

void LateArrivals::drain() {
  for (std::size_t vm = 0; vm < batches_.size(); ++vm) send(static_cast<int>(vm));
  while (!requests_.empty()) {
    complete();
    if (!requests_.empty()) ::usleep(50);  // the daemons poll; do not take their CPU
  }
}

}  // namespace mcm::engine
