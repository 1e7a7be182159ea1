// The communication pattern of one run: what the application's ranks sent each other
// with point-to-point calls, as `mcmrun --mode record` writes it (pattern.yaml, merged by
// application rank 0 at MPI_Finalize) and `mcm-probe --pattern FILE` reads it to pick the
// message sizes it measures. The file format, with an example, is docs/pattern.md:
//
//   version: 1
//   ranks: 4
//   messages: 5520                     # all point-to-point sends (MPI_PROC_NULL excluded)
//   bytes: 13126720
//   dominant_sizes: [8, 5600, 16]      # exact sizes, most frequent first, at most 8
//   top_sizes:                         # the same sizes with their traffic
//     - {size: 8, messages: 3120, bytes: 24960}
//   histogram:                         # non-empty power-of-two buckets, ascending
//     - {min: 8, max: 15, messages: 3120, bytes: 24960}
//   matrix:                            # [from][to], application ranks
//     messages: [[0, 1185, 0, 0], ...]
//     bytes: [[0, 3300480, 0, 0], ...]
//   outside_world: {messages: 0, bytes: 0}     # to processes outside the application
//   untracked_sizes: {messages: 0, bytes: 0}   # sizes beyond a rank's size table
//
// Loading validates everything (types, ranges, shapes, and that the totals agree) so
// that a hand-edited or truncated file fails with its position instead of misleading
// the probe. The writer is libmcm's (libmcm/record/pattern_yaml.h), which cannot link yaml-cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mcm {

/// Messages and their bytes.
struct Traffic {
  std::uint64_t messages = 0;
  std::uint64_t bytes = 0;

  void add(std::uint64_t message_bytes) {
    ++messages;
    bytes += message_bytes;
  }
  Traffic& operator+=(const Traffic& o) {
    messages += o.messages;
    bytes += o.bytes;
    return *this;
  }
  bool operator==(const Traffic& o) const { return messages == o.messages && bytes == o.bytes; }
  bool operator!=(const Traffic& o) const { return !(*this == o); }
};

/// The messages of one exact size (bytes == size * messages).
struct SizeTraffic {
  std::uint64_t size = 0;
  Traffic traffic;
};

/// A histogram bucket: the messages of min..max bytes (inclusive).
struct SizeBucket {
  std::uint64_t min = 0;
  std::uint64_t max = 0;
  Traffic traffic;
};

/// Power-of-two buckets: bucket 0 holds empty messages, bucket k (1..64) the sizes in
/// [2^(k-1), 2^k - 1].
inline constexpr int kSizeBuckets = 65;

/// The bucket of a message of `bytes`.
inline int size_bucket(std::uint64_t bytes) {
  return bytes == 0 ? 0 : 64 - __builtin_clzll(bytes);
}

/// Bucket `index`'s bounds (its traffic left empty).
inline SizeBucket size_bucket_bounds(int index) {
  if (index == 0) return {};
  const std::uint64_t min = std::uint64_t{1} << (index - 1);
  return {min, min + (min - 1), {}};
}

struct Pattern {
  static constexpr int kVersion = 1;
  /// dominant_sizes and top_sizes name at most this many sizes.
  static constexpr std::size_t kMaxDominantSizes = 8;

  int ranks = 0;  ///< application ranks (the size of the application's MPI_COMM_WORLD)
  Traffic total;  ///< every counted send, including outside_world and untracked_sizes
  /// Exact message sizes in bytes, most frequent first (ties: more bytes first), at most
  /// kMaxDominantSizes, never empty. What mcm-probe measures.
  std::vector<std::uint64_t> dominant_sizes;
  std::vector<SizeTraffic> top_sizes;        ///< dominant_sizes with their traffic, same order
  std::vector<SizeBucket> histogram;         ///< the non-empty buckets, ascending
  std::vector<std::vector<Traffic>> matrix;  ///< matrix[from][to]: ranks x ranks
  /// Sends to processes outside the application world (intercommunicators to spawned or
  /// connected jobs); counted in total, not in the matrix.
  Traffic outside_world;
  /// Sends whose exact size a rank could not track (its size table was full); counted in
  /// total, the matrix and the histogram, but not among the sizes.
  Traffic untracked_sizes;
};

/// Reads and validates pattern.yaml at `path`. Throws ConfigError: for an unreadable file
/// "cannot read pattern file 'PATH': <strerror>", otherwise "PATH:LINE:COLUMN: message"
/// (1-based) for YAML syntax errors and every violation of the format above, e.g.
/// "pattern.yaml:5:17: dominant_sizes must not be empty ...".
Pattern load_pattern(const std::string& path);

/// Same as load_pattern, from `text`; `file_name` is only used in messages.
Pattern parse_pattern(const std::string& text, const std::string& file_name);

}  // namespace mcm
