// Mode adaptive: whether a rank's messages really left a detoured pair, per detour (the
// time between a kRouteUpdate that moves a destination VM through the daemons and the
// next update for that VM). For the run's records (docs/records.md): a detour during
// which the rank sent to that VM but nothing went through the daemons is one whose
// messages stayed on the congested path (frames.h rule 10 forbids it). Pure logic; the
// engine calls it under its lock. Cost: a few integer operations per detoured message.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace mcm::engine {

class DetourTally {
 public:
  /// The daemon moved destination VM `vm` through the daemons (`detoured`) or back.
  void route_changed(int vm, bool detoured) {
    Period& p = period(vm);
    close(p);
    p.open = detoured;
  }
  /// The rank sent a message to VM `vm` (any path); counted only while it is detoured.
  void sent(int vm) {
    Period& p = period(vm);
    if (p.open) ++p.sends;
  }
  /// A message to VM `vm` left through the daemons.
  void relayed(int vm) {
    Period& p = period(vm);
    if (p.open) ++p.relayed;
  }

  /// Detours (ended or not) during which the rank sent to their VM.
  std::uint64_t with_sends() const { return totals().first; }
  /// ...and those of them during which at least one message went through the daemons.
  std::uint64_t relayed_detours() const { return totals().second; }

 private:
  struct Period {
    bool open = false;
    std::uint64_t sends = 0, relayed = 0;
  };
  Period& period(int vm) {
    const size_t i = vm < 0 ? 0 : static_cast<size_t>(vm);
    if (periods_.size() <= i) periods_.resize(i + 1);
    return periods_[i];
  }
  void close(Period& p) {
    if (p.open && p.sends > 0) ++ended_with_sends_;
    if (p.open && p.relayed > 0) ++ended_relayed_;
    p = Period{};
  }
  std::pair<std::uint64_t, std::uint64_t> totals() const {
    std::uint64_t sends = ended_with_sends_, relayed = ended_relayed_;
    for (const Period& p : periods_) {
      if (p.open && p.sends > 0) ++sends;
      if (p.open && p.relayed > 0) ++relayed;
    }
    return {sends, relayed};
  }

  std::vector<Period> periods_;  ///< by destination VM
  std::uint64_t ended_with_sends_ = 0, ended_relayed_ = 0;
};

}  // namespace mcm::engine
