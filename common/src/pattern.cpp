// Loading pattern.yaml (mcm/pattern.h): the schema, then the checks that tie its parts
// together (the totals, the matrix, the histogram and the sizes must agree), each failing
// at the position of the value it names.
#include "mcm/pattern.h"

#include <yaml-cpp/yaml.h>

#include <limits>
#include <set>

#include "yaml_document.h"

namespace mcm {
namespace {

using yaml::fail;

constexpr long long kMaxCount = std::numeric_limits<long long>::max();
constexpr long long kMaxRanks = 1 << 24;

const std::vector<std::string_view> kTopKeys = {
    "version",   "ranks",     "messages", "bytes",         "dominant_sizes",
    "top_sizes", "histogram", "matrix",   "outside_world", "untracked_sizes"};

/// One file's reader: every method fails with the file's name and the node's position.
class Reader {
 public:
  explicit Reader(const std::string& file) : file_(file) {}

  std::uint64_t count(const YAML::Node& node, const std::string& path) const {
    return static_cast<std::uint64_t>(yaml::integer(file_, node, path, 0, kMaxCount));
  }

  /// {messages: N, bytes: B}.
  Traffic traffic(const YAML::Node& node, const std::string& path) const {
    yaml::expect_map(file_, node, path, " {messages: N, bytes: B}");
    yaml::check_keys(file_, node, path, {"messages", "bytes"}, {"messages", "bytes"});
    Traffic t{count(node["messages"], path + ".messages"), count(node["bytes"], path + ".bytes")};
    if (t.messages == 0 && t.bytes != 0)
      fail(file_, node["bytes"].Mark(), path + ".bytes must be 0 when there are no messages");
    return t;
  }

  std::vector<SizeTraffic> top_sizes(const YAML::Node& list) const {
    yaml::expect_list(file_, list, "top_sizes", " of {size: S, messages: N, bytes: B}");
    std::vector<SizeTraffic> out;
    std::set<std::uint64_t> seen;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const YAML::Node& item = list[i];
      const std::string path = "top_sizes[" + std::to_string(i) + "]";
      yaml::expect_map(file_, item, path, " {size: S, messages: N, bytes: B}");
      yaml::check_keys(file_, item, path, {"size", "messages", "bytes"},
                       {"size", "messages", "bytes"});
      SizeTraffic s{
          count(item["size"], path + ".size"),
          {count(item["messages"], path + ".messages"), count(item["bytes"], path + ".bytes")}};
      if (s.traffic.messages == 0)
        fail(file_, item["messages"].Mark(), path + ".messages must be at least 1");
      const bool overflow = s.size != 0 && s.traffic.messages > UINT64_MAX / s.size;
      if (overflow || s.traffic.bytes != s.size * s.traffic.messages)
        fail(file_, item["bytes"].Mark(),
             path + ".bytes must be size x messages (" + std::to_string(s.size) + " x " +
                 std::to_string(s.traffic.messages) + ")");
      if (!seen.insert(s.size).second)
        fail(file_, item["size"].Mark(),
             path + ".size " + std::to_string(s.size) + " is listed twice");
      if (!out.empty() && (out.back().traffic.messages < s.traffic.messages ||
                           (out.back().traffic.messages == s.traffic.messages &&
                            out.back().traffic.bytes < s.traffic.bytes)))
        fail(file_, item.Mark(), "top_sizes must be ordered most frequent first (then most bytes)");
      out.push_back(s);
    }
    if (out.size() > Pattern::kMaxDominantSizes)
      fail(file_, list.Mark(),
           "top_sizes lists at most " + std::to_string(Pattern::kMaxDominantSizes) + " sizes");
    return out;
  }

  /// The plain list of sizes, which must be those of top_sizes in the same order.
  std::vector<std::uint64_t> dominant_sizes(const YAML::Node& list,
                                            const std::vector<SizeTraffic>& top) const {
    yaml::expect_list(file_, list, "dominant_sizes", " of message sizes in bytes");
    if (list.size() == 0)
      fail(file_, list.Mark(),
           "dominant_sizes must not be empty (a recorded run that sent no "
           "point-to-point message names no sizes)");
    std::vector<std::uint64_t> out;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string path = "dominant_sizes[" + std::to_string(i) + "]";
      out.push_back(count(list[i], path));
      if (i >= top.size() || top[i].size != out.back())
        fail(file_, list[i].Mark(),
             path + " must be top_sizes[" + std::to_string(i) +
                 "].size (the two list the same sizes in the same order)");
    }
    if (out.size() != top.size())
      fail(file_, list.Mark(),
           "dominant_sizes has " + std::to_string(out.size()) + " sizes but top_sizes " +
               std::to_string(top.size()));
    return out;
  }

  std::vector<SizeBucket> histogram(const YAML::Node& list) const {
    yaml::expect_list(file_, list, "histogram", " of {min: A, max: B, messages: N, bytes: B}");
    std::vector<SizeBucket> out;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const YAML::Node& item = list[i];
      const std::string path = "histogram[" + std::to_string(i) + "]";
      yaml::expect_map(file_, item, path, " {min: A, max: B, messages: N, bytes: B}");
      const std::vector<std::string_view> keys = {"min", "max", "messages", "bytes"};
      yaml::check_keys(file_, item, path, keys, keys);
      const std::uint64_t min = count(item["min"], path + ".min");
      if (min != 0 && (min & (min - 1)) != 0)
        fail(file_, item["min"].Mark(), path + ".min must be 0 or a power of two");
      const SizeBucket bounds = size_bucket_bounds(size_bucket(min));
      if (count(item["max"], path + ".max") != bounds.max)
        fail(file_, item["max"].Mark(),
             path + ".max must be " + std::to_string(bounds.max) + " (the bucket of min " +
                 std::to_string(min) + ")");
      SizeBucket b{
          min,
          bounds.max,
          {count(item["messages"], path + ".messages"), count(item["bytes"], path + ".bytes")}};
      if (b.traffic.messages == 0)
        fail(file_, item["messages"].Mark(), path + ".messages must be at least 1");
      const std::uint64_t m = b.traffic.messages, q = b.traffic.bytes / m, r = b.traffic.bytes % m;
      if (q < b.min || q > b.max || (q == b.max && r != 0))
        fail(file_, item["bytes"].Mark(),
             path + ".bytes must be between min x messages and max x messages");
      if (!out.empty() && out.back().min >= b.min)
        fail(file_, item.Mark(), "histogram buckets must be in ascending order, each at most once");
      out.push_back(b);
    }
    return out;
  }

  /// One of the matrix's two tables: `ranks` rows of `ranks` counts.
  std::vector<std::vector<std::uint64_t>> table(const YAML::Node& rows, const std::string& path,
                                                std::size_t ranks) const {
    const std::string shape = " of " + std::to_string(ranks) + " rows (one per sending rank)";
    yaml::expect_list(file_, rows, path, shape);
    if (rows.size() != ranks)
      fail(file_, rows.Mark(),
           path + " must have " + std::to_string(ranks) + " rows (ranks), not " +
               std::to_string(rows.size()));
    std::vector<std::vector<std::uint64_t>> out(ranks);
    for (std::size_t i = 0; i < ranks; ++i) {
      const std::string row_path = path + "[" + std::to_string(i) + "]";
      yaml::expect_list(file_, rows[i], row_path, " of counts, one per destination rank");
      if (rows[i].size() != ranks)
        fail(file_, rows[i].Mark(),
             row_path + " must have " + std::to_string(ranks) + " entries (ranks), not " +
                 std::to_string(rows[i].size()));
      for (std::size_t j = 0; j < ranks; ++j)
        out[i].push_back(count(rows[i][j], row_path + "[" + std::to_string(j) + "]"));
    }
    return out;
  }

  std::vector<std::vector<Traffic>> matrix(const YAML::Node& node, std::size_t ranks) const {
    yaml::expect_map(file_, node, "matrix", " {messages: [[...]], bytes: [[...]]}");
    yaml::check_keys(file_, node, "matrix", {"messages", "bytes"}, {"messages", "bytes"});
    const auto messages = table(node["messages"], "matrix.messages", ranks);
    const auto bytes = table(node["bytes"], "matrix.bytes", ranks);
    std::vector<std::vector<Traffic>> out(ranks, std::vector<Traffic>(ranks));
    for (std::size_t i = 0; i < ranks; ++i)
      for (std::size_t j = 0; j < ranks; ++j) {
        out[i][j] = {messages[i][j], bytes[i][j]};
        if (messages[i][j] == 0 && bytes[i][j] != 0)
          fail(file_, node["bytes"][i][j].Mark(),
               "matrix.bytes[" + std::to_string(i) + "][" + std::to_string(j) +
                   "] must be 0: matrix.messages has no message there");
      }
    return out;
  }

  /// Fails at `at` unless `sum` (what the parts add up to) is the file's total.
  void agree(const Traffic& total, const Traffic& sum, const YAML::Node& root,
             const std::string& parts) const {
    for (const char* key : {"messages", "bytes"}) {
      const bool is_messages = key == std::string_view("messages");
      const std::uint64_t want = is_messages ? total.messages : total.bytes;
      const std::uint64_t got = is_messages ? sum.messages : sum.bytes;
      if (want != got)
        fail(file_, root[key].Mark(),
             std::string(key) + " is " + std::to_string(want) + " but " + parts + " add up to " +
                 std::to_string(got));
    }
  }

 private:
  const std::string& file_;
};

}  // namespace

Pattern parse_pattern(const std::string& text, const std::string& file_name) {
  const Reader read(file_name);
  const YAML::Node root = yaml::parse_document(text, file_name);
  if (root.IsNull()) fail(file_name, root.Mark(), "the pattern file is empty");
  yaml::expect_map(file_name, root, "the top level", " (see docs/pattern.md)");
  yaml::check_keys(file_name, root, "", kTopKeys, kTopKeys);

  const long long version = yaml::integer(file_name, root["version"], "version", 0, kMaxCount);
  if (version != Pattern::kVersion)
    fail(file_name, root["version"].Mark(),
         "version " + std::to_string(version) + " is not supported (this MCM reads version " +
             std::to_string(Pattern::kVersion) + ")");
  Pattern p;
  p.ranks = static_cast<int>(yaml::integer(file_name, root["ranks"], "ranks", 1, kMaxRanks));
  p.total = {read.count(root["messages"], "messages"), read.count(root["bytes"], "bytes")};
  p.top_sizes = read.top_sizes(root["top_sizes"]);
  p.dominant_sizes = read.dominant_sizes(root["dominant_sizes"], p.top_sizes);
  p.histogram = read.histogram(root["histogram"]);
  p.matrix = read.matrix(root["matrix"], static_cast<std::size_t>(p.ranks));
  p.outside_world = read.traffic(root["outside_world"], "outside_world");
  p.untracked_sizes = read.traffic(root["untracked_sizes"], "untracked_sizes");

  Traffic sent = p.outside_world, histogram, sizes = p.untracked_sizes;
  for (const auto& row : p.matrix)
    for (const Traffic& t : row) sent += t;
  for (const SizeBucket& b : p.histogram) histogram += b.traffic;
  for (const SizeTraffic& s : p.top_sizes) sizes += s.traffic;
  read.agree(p.total, sent, root, "the matrix and outside_world");
  read.agree(p.total, histogram, root, "the histogram's buckets");
  if (sizes.messages > p.total.messages || sizes.bytes > p.total.bytes)
    fail(file_name, root["top_sizes"].Mark(),
         "top_sizes and untracked_sizes hold more traffic than the total");
  return p;
}

Pattern load_pattern(const std::string& path) {
  return parse_pattern(yaml::read_file(path, "pattern file"), path);
}

}  // namespace mcm
