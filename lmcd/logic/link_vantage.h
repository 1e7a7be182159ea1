// Whether this host's own link is the queued one, from the round trips between its lmcd and
// its peers (the status echoes of mcm/control/messages.h). Pure: no I/O, no clock (callers
// pass times in seconds); unit-tested in test/unit/lmcd_link_vantage_test.cpp.
//
// Why: the daemons' one-way latencies rest on clock offsets measured by round trips. When a
// flood fills host H's downlink, the offsets between H's guests and the others are off by
// half the queue, so the clean paths *out of* H look slow too, and the guests of the host
// at their other end report "most of my sources are high" just as H's guests do. The
// guests' reports cannot say which end is queued; a third host can. A round trip needs no
// clock offset: H's round trips to most of its peers are long, a victim's only to H.
//
// Rule, with min_excess_us of the detection section:
//   - a peer's round trip *excess* is the least of its kRecent newest samples over the
//     least sample since this lmcd started (lmcd runs before and after jobs, so that least
//     is the clean link's);
//   - the link is *queued* when more than half of the peers measured within ttl_s have an
//     excess of at least min_excess_us, and *clean* when not;
//   - with fewer than 2 peers configured, no third host can tell: *unknown*, which vetoes
//     nothing (with two hosts, each sees the other's queue as its own, and the planner
//     moves nothing to a host that says it is congested);
//   - with 2 or more configured but fewer than 2 measured (a peer lmcd down or cut off):
//     *unconfirmed*, which vetoes: the guests' slow paths may start at the other end.
#pragma once

#include <deque>
#include <map>
#include <string>

namespace mcm::lmcd {

struct LinkView {
  enum class State { unknown, unconfirmed, clean, queued };
  State state = State::unknown;
  int peers_measured = 0;
  int peers_slow = 0;
  double median_excess_us = 0;  ///< over the peers measured (0: none)
  std::string summary;          ///< "round trips to h1 +2400 us, h3 +2310 us"
  /// Whether the guests' destination congestion is confirmed: when the link is queued, or
  /// when no third host could tell (unknown).
  bool confirms() const { return state == State::queued || state == State::unknown; }
};

class LinkVantage {
 public:
  static constexpr int kRecent = 5;

  /// `peers`: how many peers the configuration names.
  LinkVantage(double min_excess_us, double ttl_s, int peers)
      : min_excess_us_(min_excess_us), ttl_s_(ttl_s), configured_(peers) {}

  /// A round trip to `peer` of `rtt_us`, measured at `now`.
  void round_trip(const std::string& peer, double rtt_us, double now);
  LinkView evaluate(double now) const;

 private:
  struct Peer {
    std::deque<double> recent;
    double least = 0;
    double at = 0;
  };
  double min_excess_us_, ttl_s_;
  int configured_;
  std::map<std::string, Peer> peers_;
};

}  // namespace mcm::lmcd
