#include "runtime/report_forwarder.h"

#include <algorithm>

#include "mcm/protocol/codec.h"
#include "mcm/protocol/tags.h"

namespace mcm::daemon {

ReportForwarder::ReportForwarder(const Layout& layout, Transport& transport,
                                 const Doorbell& doorbell)
    : layout_(layout), transport_(transport), doorbell_(doorbell) {}

int ReportForwarder::source_vm(int tag, const std::vector<char>& bytes) const {
  if (tag == protocol::kTagLateReports) {
    const auto reports =
        protocol::read_late_reports(bytes.data(), bytes.size(), layout_.daemon_count);
    if (!reports) return -1;
    const int vm = reports->front().source_vm;
    const bool one_source =
        std::all_of(reports->begin(), reports->end(),
                    [vm](const protocol::LateArrival& a) { return a.source_vm == vm; });
    return one_source ? vm : -1;
  }
  if (tag == protocol::kTagReceiveWaits) {
    const auto waits =
        protocol::read_receive_waits(bytes.data(), bytes.size(), layout_.daemon_count);
    return waits ? waits->source_vm : -1;
  }
  return -1;
}

bool ReportForwarder::hand_on(int from, int tag, const std::vector<char>& bytes) {
  if (from < 0 || static_cast<std::size_t>(from) >= layout_.vm_of_world_rank.size()) return false;
  const int from_vm = layout_.vm_of_world_rank[static_cast<std::size_t>(from)];
  const bool local_rank = from_vm == layout_.vm && from != layout_.world_rank &&
                          layout_.daemon_of_vm[static_cast<std::size_t>(from_vm)] != from;
  if (!local_rank) return false;
  const int vm = source_vm(tag, bytes);
  if (vm < 0 || vm == layout_.vm) return false;  // not a report, or this VM's own
  const int daemon = layout_.daemon_of_vm[static_cast<std::size_t>(vm)];
  auto copy = std::make_shared<const std::vector<char>>(bytes);
  MPI_Request request;
  transport_.issend(copy->data(), static_cast<int>(copy->size()), daemon, tag, layout_.private_comm,
                    &request);
  requests_.push_back(request);
  buffers_.push_back(std::move(copy));
  if (tag == protocol::kTagLateReports)
    doorbell_.ring(layout_.doorbell_of_world_rank[static_cast<std::size_t>(daemon)]);
  ++handed_on_;
  return true;
}

bool ReportForwarder::idle() {
  std::size_t keep = 0;
  for (std::size_t i = 0; i < requests_.size(); ++i) {
    if (transport_.test(&requests_[i], MPI_STATUS_IGNORE)) continue;
    requests_[keep] = requests_[i];
    buffers_[keep] = std::move(buffers_[i]);
    ++keep;
  }
  requests_.resize(keep);
  buffers_.resize(keep);
  return requests_.empty();
}

}  // namespace mcm::daemon
