#include "probe_sizes.h"

#include <algorithm>
#include <cmath>

#include "mcm/pattern.h"

namespace probe {

long long closest_size(const std::vector<long long>& sizes, long long target) {
  auto distance = [&](long long s) {
    return std::abs(std::log(static_cast<double>(s) / static_cast<double>(target)));
  };
  long long best = sizes.front();
  for (long long s : sizes)
    if (distance(s) < distance(best)) best = s;
  return best;
}

namespace {

constexpr long long kLargest = 1LL << 30;  // what options.cpp accepts too

/// The sizes of pattern.yaml: its dominant sizes that can be measured, the reference the
/// one of them carrying the most bytes.
SizeChoice from_pattern(const std::string& path) {
  const mcm::Pattern p = mcm::load_pattern(path);
  SizeChoice c;
  c.origin = "the " + std::to_string(p.dominant_sizes.size()) + " dominant sizes of " + path;
  std::uint64_t most_bytes = 0;
  std::vector<std::string> dropped;
  for (const mcm::SizeTraffic& s : p.top_sizes) {
    if (s.size == 0 || s.size > static_cast<std::uint64_t>(kLargest)) {
      dropped.push_back(size_text(static_cast<long long>(s.size)));
      continue;
    }
    c.sizes.push_back(static_cast<long long>(s.size));
    if (s.traffic.bytes > most_bytes) {
      most_bytes = s.traffic.bytes;
      c.reference = static_cast<long long>(s.size);
    }
  }
  std::vector<std::string> notes;
  if (!dropped.empty()) {
    std::string list;
    for (const auto& d : dropped) list += (list.empty() ? "" : ", ") + d;
    notes.push_back("not measurable, left out: " + list);
  }
  if (c.sizes.empty()) {  // only empty messages: nothing of the pattern to measure
    c.sizes = default_sizes();
    c.reference = closest_size(c.sizes, 64 << 10);
    notes.push_back("no size to measure, the default ladder used instead");
  } else if (*std::min_element(c.sizes.begin(), c.sizes.end()) > 1024 || c.sizes.size() < 2) {
    const long long extra = *std::min_element(c.sizes.begin(), c.sizes.end()) > 64 ? 64 : 1 << 20;
    c.sizes.push_back(extra);
    notes.push_back(size_text(extra) +
                    " added so that the alpha + size/beta fit has two sizes "
                    "far apart");
  }
  std::sort(c.sizes.begin(), c.sizes.end());
  c.sizes.erase(std::unique(c.sizes.begin(), c.sizes.end()), c.sizes.end());
  if (!notes.empty()) {
    c.note = "sizes from " + path + ":";
    for (std::size_t i = 0; i < notes.size(); ++i) c.note += (i ? "; " : " ") + notes[i];
  }
  return c;
}

}  // namespace

SizeChoice choose_sizes(const Options& o) {
  constexpr long long kReference = 64 << 10;
  if (o.pattern) return from_pattern(*o.pattern);
  SizeChoice c;
  if (!o.sizes.empty()) {
    c.sizes = o.sizes;
    c.origin = "--sizes";
  } else {
    c.sizes = default_sizes();
    c.origin = "default ladder";
  }
  c.reference = closest_size(c.sizes, kReference);
  return c;
}

}  // namespace probe
