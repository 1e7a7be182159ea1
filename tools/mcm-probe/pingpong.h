// Timing one direction of a path with MPI messages, one-way.
//
// The echo side answers every ping with a pong that carries the time the ping had fully
// arrived, by the echo side's clock (MPI_Wtime). With the offset between the two clocks,
// the sender then knows how long the ping took to arrive: one direction alone, so a
// congested vm1 -> vm2 neither shows on vm2 -> vm1 nor hides behind a congested way back.
//
// The offset comes from empty pings (Cristian's method): the sample with the shortest
// round trip, assuming its two halves equal. Estimate it while the paths are quiet (the
// worker does so before each flood) and use it for the next second or so: clocks drift.
//
// Small sizes on the clean cluster (up to kRoundTripMaxBytes) are timed as half the round
// trip instead: their one-way time (10-50 µs on a virtual network) is no larger than the
// offset's error (up to half the shortest round trip, with opposite signs on the two
// paths of a pair), which read 4.6 µs one way and 23.6 µs the other for one 13.3 µs half
// round trip. A ping of that size and its 8-byte pong cost the same on the way there and
// back unless a link is congested, and the probe measures the clean cluster.
//
// Protocol on `comm` between the two ranks: pings carry kPing (any size), pongs kPong (one
// double), one empty kStop ends the echo loop. The echo side needs no schedule.
#pragma once

#include <mpi.h>

#include <vector>

namespace probe {

/// How many samples per size: min_reps, then more until target_seconds have passed or
/// max_reps are taken; and none started after cap_seconds (so a slow path gives fewer
/// samples, at least one, in bounded time). A small size takes samples for the whole
/// target_seconds (tens of µs each): 40 of them took 0.4 ms, and a moment without CPU on a
/// shared machine then delayed every one (24 B read 45 µs on a path a ping-pong crosses in
/// 10 µs).
struct Repetitions {
  int min_reps = 3;
  int max_reps = 2000;
  double target_seconds = 0.02;
  double cap_seconds = 2.0;
};

struct DirectionResult {
  std::vector<double> median_us;  ///< per size
  std::vector<double> spread_us;  ///< per size: interquartile range of the samples
  std::vector<double> low_us;     ///< per size: lower quartile, what persists in every
                                  ///< sample (a queue), unlike a moment without CPU
  std::vector<int> samples;       ///< per size
};

/// The sender's side: `peer`'s clock minus ours, in seconds, from `pings` empty pings;
/// ends the echo with kStop.
double estimate_offset(MPI_Comm comm, int peer, int pings = 256);

/// The clean cluster's sizes up to this are timed as half the round trip (see the header).
inline constexpr long long kRoundTripMaxBytes = 1 << 10;

/// The sender's side: measures every size of `sizes` to `peer`, whose clock is `offset`
/// seconds ahead of ours; sizes up to `halved_up_to` as half the round trip (0: none, e.g.
/// under a flood, whose direction matters); ends the echo with kStop.
DirectionResult measure_direction(MPI_Comm comm, int peer, const std::vector<long long>& sizes,
                                  const Repetitions& reps, double offset,
                                  long long halved_up_to = 0);

/// The echo side: answers pings from `peer` until its kStop; `max_size` is the largest
/// size the sender will send.
void echo(MPI_Comm comm, int peer, long long max_size);

}  // namespace probe
