#include "relay/relay_counters.h"

namespace mcm::daemon {

const char* to_string(HopRole role) {
  switch (role) {
    case HopRole::source:
      return "source";
    case HopRole::transit:
      return "in transit";
    case HopRole::destination:
      return "destination";
  }
  return "?";
}

void RelayCounters::add(const Key& key, std::uint64_t payload_bytes, bool last) {
  Count& c = counts_[key];
  ++c.frames;
  c.messages += last ? 1 : 0;
  c.payload_bytes += payload_bytes;
}

RelayCounters::Count RelayCounters::total() const {
  Count t;
  for (const auto& [key, c] : counts_) {
    t.frames += c.frames;
    t.messages += c.messages;
    t.payload_bytes += c.payload_bytes;
  }
  return t;
}

std::vector<std::string> RelayCounters::summary(const std::vector<std::string>& vm_names) const {
  auto vm = [&](int i) {
    std::string s = "VM " + std::to_string(i);
    if (i >= 0 && i < static_cast<int>(vm_names.size()) &&
        !vm_names[static_cast<size_t>(i)].empty())
      s += " (" + vm_names[static_cast<size_t>(i)] + ")";
    return s;
  };
  std::vector<std::string> lines;
  for (const auto& [k, c] : counts_) {
    lines.push_back(std::string(to_string(k.role)) + ": " + vm(k.from_vm) + " -> " + vm(k.to_vm) +
                    (k.via < 0 ? std::string(" direct") : " via " + vm(k.via)) + ": " +
                    std::to_string(c.messages) + " messages, " + std::to_string(c.frames) +
                    " frames, " + std::to_string(c.payload_bytes) + " payload bytes");
  }
  return lines;
}

}  // namespace mcm::daemon
