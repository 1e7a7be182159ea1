#include "record/pattern_yaml.h"

namespace mcm::shim {
namespace {

std::string n(std::uint64_t v) {
  return std::to_string(v);
}

/// "{messages: M, bytes: B}".
std::string flow(const Traffic& t) {
  return "{messages: " + n(t.messages) + ", bytes: " + n(t.bytes) + "}";
}

/// "key: {messages: M, bytes: B}\n".
std::string traffic_line(const char* key, const Traffic& t) {
  return std::string(key) + ": " + flow(t) + "\n";
}

std::string top_sizes_block(const std::vector<SizeTraffic>& sizes) {
  if (sizes.empty()) return "top_sizes: []\n";
  std::string out = "top_sizes:             # exact sizes, most frequent first\n";
  for (const SizeTraffic& s : sizes)
    out += "  - {size: " + n(s.size) + ", messages: " + n(s.traffic.messages) +
           ", bytes: " + n(s.traffic.bytes) + "}\n";
  return out;
}

std::string histogram_block(const std::vector<SizeBucket>& buckets) {
  if (buckets.empty()) return "histogram: []\n";
  std::string out = "histogram:             # message sizes min..max bytes\n";
  for (const SizeBucket& b : buckets)
    out += "  - {min: " + n(b.min) + ", max: " + n(b.max) + ", messages: " + n(b.traffic.messages) +
           ", bytes: " + n(b.traffic.bytes) + "}\n";
  return out;
}

std::vector<SizeBucket> non_empty(const std::array<Traffic, kSizeBuckets>& buckets) {
  std::vector<SizeBucket> out;
  for (int b = 0; b < kSizeBuckets; ++b) {
    const Traffic& t = buckets[static_cast<std::size_t>(b)];
    if (t.messages == 0) continue;
    out.push_back(size_bucket_bounds(b));
    out.back().traffic = t;
  }
  return out;
}

/// "    - [a, b, c]\n" per row, from one field of the matrix.
std::string table(const std::vector<std::vector<Traffic>>& matrix, std::uint64_t Traffic::*field) {
  std::string out;
  for (const auto& row : matrix) {
    out += "    - [";
    for (std::size_t j = 0; j < row.size(); ++j) out += (j ? ", " : "") + n(row[j].*field);
    out += "]\n";
  }
  return out;
}

}  // namespace

std::string pattern_yaml(const Pattern& p) {
  std::string out =
      "# MCM communication pattern: the point-to-point sends of every application rank\n"
      "# (mcmrun --mode record), read by mcm-probe --pattern. Format: docs/pattern.md.\n";
  out += "version: " + std::to_string(Pattern::kVersion) + "\n";
  out += "ranks: " + std::to_string(p.ranks) + "\n";
  out += "messages: " + n(p.total.messages) + "\n";
  out += "bytes: " + n(p.total.bytes) + "\n";
  out += "dominant_sizes: [";
  for (std::size_t i = 0; i < p.dominant_sizes.size(); ++i)
    out += (i ? ", " : "") + n(p.dominant_sizes[i]);
  out += "]\n";
  out += top_sizes_block(p.top_sizes);
  out += histogram_block(p.histogram);
  out += "matrix:                # [from rank][to rank]\n";
  out += "  messages:\n" + table(p.matrix, &Traffic::messages);
  out += "  bytes:\n" + table(p.matrix, &Traffic::bytes);
  out += traffic_line("outside_world", p.outside_world);
  out += traffic_line("untracked_sizes", p.untracked_sizes);
  return out;
}

std::string rank_pattern_yaml(int rank, const RankTally& tally) {
  std::string out =
      "# MCM communication pattern of application rank " + std::to_string(rank) +
      " (mcmrun --mode record); the\n# run's is pattern.yaml. Format: docs/pattern.md.\n";
  out += "version: " + std::to_string(Pattern::kVersion) + "\n";
  out += "rank: " + std::to_string(rank) + "\n";
  out += "ranks: " + std::to_string(tally.ranks()) + "\n";
  const Traffic total = tally.total();
  out += "messages: " + n(total.messages) + "\n";
  out += "bytes: " + n(total.bytes) + "\n";
  std::string destinations;
  for (std::size_t d = 0; d < tally.to().size(); ++d)
    if (tally.to()[d].messages != 0)
      destinations += "  - {rank: " + n(d) + ", " + flow(tally.to()[d]).substr(1) + "\n";
  out += destinations.empty() ? "destinations: []\n"
                              : "destinations:          # application ranks\n" + destinations;
  out += traffic_line("outside_world", tally.outside());
  out += histogram_block(non_empty(tally.buckets()));
  out += top_sizes_block(top_sizes(tally.sizes(), Pattern::kMaxDominantSizes));
  out += traffic_line("untracked_sizes", tally.untracked());
  return out;
}

}  // namespace mcm::shim
