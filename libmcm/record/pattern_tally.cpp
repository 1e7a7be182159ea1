#include "record/pattern_tally.h"

#include <algorithm>
#include <tuple>

namespace mcm::shim {

void RankTally::add(int dest, std::uint64_t bytes) {
  if (dest == kOutside)
    outside_.add(bytes);
  else
    to_[static_cast<std::size_t>(dest)].add(bytes);
  buckets_[static_cast<std::size_t>(size_bucket(bytes))].add(bytes);
  auto it = sizes_.find(bytes);
  if (it != sizes_.end())
    it->second.add(bytes);
  else if (sizes_.size() < kMaxSizes)
    sizes_[bytes].add(bytes);
  else
    untracked_.add(bytes);
}

Traffic RankTally::total() const {
  Traffic t = outside_;
  for (const Traffic& d : to_) t += d;
  return t;
}

std::vector<SizeTraffic> RankTally::sizes() const {
  std::vector<SizeTraffic> out;
  out.reserve(sizes_.size());
  for (const auto& [size, traffic] : sizes_) out.push_back({size, traffic});
  return out;
}

// Packed layout, all std::uint64_t:
//   D, D x (dest, messages, bytes)          destinations with traffic
//   outside.messages, outside.bytes
//   B, B x (bucket, messages, bytes)        non-empty buckets
//   untracked.messages, untracked.bytes
//   S, S x (size, messages, bytes)          tracked sizes
std::vector<std::uint64_t> RankTally::pack() const {
  std::vector<std::uint64_t> w;
  auto triples = [&w](auto begin, auto end, auto key_of, auto traffic_of) {
    const std::size_t at = w.size();
    w.push_back(0);
    for (auto it = begin; it != end; ++it) {
      const Traffic& t = traffic_of(it);
      if (t.messages == 0) continue;
      w.insert(w.end(), {key_of(it), t.messages, t.bytes});
      ++w[at];
    }
  };
  auto index_in = [](const auto& container) {
    return [&container](auto it) { return static_cast<std::uint64_t>(it - container.begin()); };
  };
  auto self = [](auto it) -> const Traffic& { return *it; };
  triples(to_.begin(), to_.end(), index_in(to_), self);
  w.insert(w.end(), {outside_.messages, outside_.bytes});
  triples(buckets_.begin(), buckets_.end(), index_in(buckets_), self);
  w.insert(w.end(), {untracked_.messages, untracked_.bytes});
  triples(
      sizes_.begin(), sizes_.end(), [](auto it) { return it->first; },
      [](auto it) -> const Traffic& { return it->second; });
  return w;
}

bool RankTally::unpack(const std::uint64_t* words, std::size_t n, int ranks, RankTally* out) {
  *out = RankTally(ranks);
  std::size_t i = 0;
  auto take = [&](std::uint64_t* v) {
    if (i >= n) return false;
    *v = words[i++];
    return true;
  };
  auto take_traffic = [&](Traffic* t) { return take(&t->messages) && take(&t->bytes); };
  // Reads a count, then that many (key, traffic) triples handed to `store`.
  auto triples = [&](auto store) {
    std::uint64_t count = 0;
    if (!take(&count) || count > (n - i) / 3) return false;
    for (std::uint64_t k = 0; k < count; ++k) {
      std::uint64_t key = 0;
      Traffic t;
      if (!take(&key) || !take_traffic(&t) || !store(key, t)) return false;
    }
    return true;
  };
  const bool ok =
      triples([&](std::uint64_t dest, const Traffic& t) {
        if (dest >= out->to_.size()) return false;
        out->to_[dest] = t;
        return true;
      }) &&
      take_traffic(&out->outside_) && triples([&](std::uint64_t bucket, const Traffic& t) {
        if (bucket >= out->buckets_.size()) return false;
        out->buckets_[bucket] = t;
        return true;
      }) &&
      take_traffic(&out->untracked_) && triples([&](std::uint64_t size, const Traffic& t) {
        return out->sizes_.emplace(size, t).second;
      });
  return ok && i == n;
}

std::vector<SizeTraffic> top_sizes(std::vector<SizeTraffic> sizes, std::size_t k) {
  auto rank = [](const SizeTraffic& s) {
    // More messages, then more bytes, then the smaller size first.
    return std::make_tuple(s.traffic.messages, s.traffic.bytes, ~s.size);
  };
  std::sort(sizes.begin(), sizes.end(),
            [&](const SizeTraffic& a, const SizeTraffic& b) { return rank(a) > rank(b); });
  if (sizes.size() > k) sizes.resize(k);
  return sizes;
}

Pattern merge(const std::vector<RankTally>& tallies) {
  Pattern p;
  p.ranks = static_cast<int>(tallies.size());
  std::array<Traffic, kSizeBuckets> buckets{};
  std::unordered_map<std::uint64_t, Traffic> sizes;
  for (const RankTally& t : tallies) {
    p.matrix.push_back(t.to());
    p.outside_world += t.outside();
    p.untracked_sizes += t.untracked();
    p.total += t.total();
    for (std::size_t b = 0; b < buckets.size(); ++b) buckets[b] += t.buckets()[b];
    for (const SizeTraffic& s : t.sizes()) sizes[s.size] += s.traffic;
  }
  for (int b = 0; b < kSizeBuckets; ++b) {
    if (buckets[static_cast<std::size_t>(b)].messages == 0) continue;
    SizeBucket bucket = size_bucket_bounds(b);
    bucket.traffic = buckets[static_cast<std::size_t>(b)];
    p.histogram.push_back(bucket);
  }
  std::vector<SizeTraffic> all;
  all.reserve(sizes.size());
  for (const auto& [size, traffic] : sizes) all.push_back({size, traffic});
  p.top_sizes = top_sizes(std::move(all), Pattern::kMaxDominantSizes);
  for (const SizeTraffic& s : p.top_sizes) p.dominant_sizes.push_back(s.size);
  return p;
}

}  // namespace mcm::shim
