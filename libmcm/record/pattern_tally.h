// What one rank sent in mode record, and how rank 0 merges every rank's tally into the
// run's pattern (mcm/pattern.h). Pure logic, no MPI: the recorder (pattern_recorder.h)
// feeds it and moves it between ranks; the unit tests drive it directly.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "mcm/pattern.h"

namespace mcm::shim {

/// One rank's sends: per destination, per power-of-two bucket and per exact size.
/// Not thread-safe (the recorder locks). add() costs one hash lookup; memory is bounded
/// by the rank count and kMaxSizes.
class RankTally {
 public:
  /// Destination of a send to a process outside the application world.
  static constexpr int kOutside = -1;
  /// Exact sizes tracked per rank. Sizes first seen after the table is full are still
  /// counted per destination and bucket, and as untracked() instead of by size.
  static constexpr std::size_t kMaxSizes = 4096;

  explicit RankTally(int ranks) : to_(static_cast<std::size_t>(ranks)) {}

  /// One message of `bytes` to application rank `dest` (0 <= dest < ranks) or kOutside.
  void add(int dest, std::uint64_t bytes);

  int ranks() const { return static_cast<int>(to_.size()); }
  /// Traffic to each application rank.
  const std::vector<Traffic>& to() const { return to_; }
  const Traffic& outside() const { return outside_; }
  /// Every message: to() + outside().
  Traffic total() const;
  const std::array<Traffic, kSizeBuckets>& buckets() const { return buckets_; }
  /// Every tracked size, in no particular order.
  std::vector<SizeTraffic> sizes() const;
  const Traffic& untracked() const { return untracked_; }

  /// The tally as integers, for PMPI_Gatherv (sparse: only what is non-zero).
  std::vector<std::uint64_t> pack() const;
  /// The inverse of pack() for a tally of `ranks` destinations. Returns false, leaving
  /// *out unspecified, when `words` is not a packed tally of that many ranks.
  static bool unpack(const std::uint64_t* words, std::size_t n, int ranks, RankTally* out);

 private:
  std::vector<Traffic> to_;
  Traffic outside_;
  std::array<Traffic, kSizeBuckets> buckets_{};
  std::unordered_map<std::uint64_t, Traffic> sizes_;
  Traffic untracked_;
};

/// The `k` sizes with the most messages, ties broken by more bytes (then by the smaller
/// size, so the order is total), most frequent first.
std::vector<SizeTraffic> top_sizes(std::vector<SizeTraffic> sizes, std::size_t k);

/// The run's pattern from every rank's tally (tallies[r] is rank r's; all of the same
/// rank count). Sizes are merged exactly before the top ones are chosen, so a size that
/// is frequent across ranks but never first on any one rank still ranks where it belongs.
Pattern merge(const std::vector<RankTally>& tallies);

}  // namespace mcm::shim
