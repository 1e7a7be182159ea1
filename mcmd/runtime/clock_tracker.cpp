#include "runtime/clock_tracker.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mcm::daemon {

ClockTracker::ClockTracker(const ClockOffsets& initial, int my_vm, double now) : my_vm_(my_vm) {
  const std::size_t n = initial.offsets.size();
  peers_.resize(n);
  const double mine = initial.offsets.empty() ? 0 : initial.offsets[static_cast<size_t>(my_vm)];
  const double my_uncertainty =
      initial.uncertainty.empty() ? 0 : initial.uncertainty[static_cast<size_t>(my_vm)];
  for (std::size_t v = 0; v < n; ++v) {
    peers_[v].offset = initial.offsets[v] - mine;
    peers_[v].uncertainty =
        static_cast<int>(v) == my_vm ? 0 : initial.uncertainty[v] + my_uncertainty;
    peers_[v].measured_at = now;
  }
}

double ClockTracker::aged(const Estimate& e, double now) const {
  return e.uncertainty + kDriftPerSecond * std::max(0.0, now - e.measured_at);
}

bool ClockTracker::exchange(int peer, double t_send, double t_received, double t_replied,
                            double t_back) {
  if (peer < 0 || peer >= static_cast<int>(peers_.size()) || peer == my_vm_) return false;
  const double on_network = (t_back - t_send) - (t_replied - t_received);
  if (!(on_network >= 0)) return false;  // stamps out of order: no sample
  Estimate& e = peers_[static_cast<size_t>(peer)];
  const double uncertainty = on_network / 2;
  if (!(uncertainty < aged(e, t_back))) return false;
  e.offset = ((t_received - t_send) + (t_replied - t_back)) / 2;
  e.uncertainty = uncertainty;
  e.measured_at = t_back;
  ++e.refreshes;
  return true;
}

double ClockTracker::to_mine(double t, int from) const {
  if (from < 0 || from >= static_cast<int>(peers_.size())) return t;
  return t - peers_[static_cast<size_t>(from)].offset;
}

double ClockTracker::uncertainty_us(int peer, double now) const {
  if (peer < 0 || peer >= static_cast<int>(peers_.size()))
    return std::numeric_limits<double>::infinity();
  return aged(peers_[static_cast<size_t>(peer)], now) * 1e6;
}

double ClockTracker::offset_us(int peer) const {
  return peers_[static_cast<size_t>(peer)].offset * 1e6;
}

int ClockTracker::refreshes(int peer) const {
  return peers_[static_cast<size_t>(peer)].refreshes;
}

}  // namespace mcm::daemon
