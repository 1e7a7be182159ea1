// Mode record's logic without MPI (libmcm/record/pattern_tally.h, pattern_yaml.h): one rank's
// tally, moving it between ranks, choosing the dominant sizes, merging, and the files'
// text, which mcm::parse_pattern must read back unchanged.
#include "record/pattern_tally.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "mcm/pattern.h"
#include "record/pattern_yaml.h"

using mcm::SizeTraffic;
using mcm::Traffic;
using mcm::shim::RankTally;

namespace {

std::vector<std::uint64_t> sizes_of(const std::vector<SizeTraffic>& sizes) {
  std::vector<std::uint64_t> out;
  for (const SizeTraffic& s : sizes) out.push_back(s.size);
  return out;
}

/// Adds `n` messages of `bytes` to `dest`.
void send(RankTally& t, int dest, std::uint64_t bytes, int n = 1) {
  for (int i = 0; i < n; ++i) t.add(dest, bytes);
}

}  // namespace

TEST_CASE("pattern tally: power-of-two buckets", "[pattern]") {
  CHECK(mcm::size_bucket(0) == 0);
  CHECK(mcm::size_bucket(1) == 1);
  CHECK(mcm::size_bucket(7) == 3);
  CHECK(mcm::size_bucket(8) == 4);
  CHECK(mcm::size_bucket(UINT64_MAX) == 64);
  for (std::uint64_t size : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{2},
                             std::uint64_t{5600}, std::uint64_t{65536}, UINT64_MAX}) {
    const mcm::SizeBucket b = mcm::size_bucket_bounds(mcm::size_bucket(size));
    CHECK(b.min <= size);
    CHECK(size <= b.max);
  }
  CHECK(mcm::size_bucket_bounds(13).min == 4096);
  CHECK(mcm::size_bucket_bounds(13).max == 8191);
  CHECK(mcm::size_bucket_bounds(64).max == UINT64_MAX);
}

TEST_CASE("pattern tally: per destination, outside the world, per bucket and per size",
          "[pattern]") {
  RankTally t(3);
  send(t, 1, 8, 3);
  send(t, 2, 5600, 2);
  send(t, 2, 0);
  send(t, RankTally::kOutside, 100);
  CHECK(t.to()[0] == Traffic{});
  CHECK(t.to()[1] == Traffic{3, 24});
  CHECK(t.to()[2] == Traffic{3, 11200});
  CHECK(t.outside() == Traffic{1, 100});
  CHECK(t.total() == Traffic{7, 11324});
  CHECK(t.buckets()[0] == Traffic{1, 0});
  CHECK(t.buckets()[4] == Traffic{3, 24});
  CHECK(t.buckets()[13] == Traffic{2, 11200});
  CHECK(t.buckets()[7] == Traffic{1, 100});
  CHECK(sizes_of(mcm::shim::top_sizes(t.sizes(), 8)) ==
        std::vector<std::uint64_t>{8, 5600, 100, 0});
  CHECK(t.untracked() == Traffic{});
}

TEST_CASE("pattern tally: sizes beyond the table are counted as untracked", "[pattern]") {
  RankTally t(2);
  for (std::uint64_t s = 0; s < RankTally::kMaxSizes; ++s) t.add(1, s);
  t.add(1, 5);                     // known: still tracked
  t.add(1, RankTally::kMaxSizes);  // new, table full
  t.add(0, RankTally::kMaxSizes + 1);
  CHECK(t.sizes().size() == RankTally::kMaxSizes);
  CHECK(t.untracked() == Traffic{2, 2 * RankTally::kMaxSizes + 1});
  CHECK(t.total().messages == RankTally::kMaxSizes + 3);
  CHECK(mcm::shim::top_sizes(t.sizes(), 1)[0].size == 5);
}

TEST_CASE("pattern tally: the dominant sizes: most messages, then most bytes", "[pattern]") {
  const std::vector<SizeTraffic> sizes = {
      {16, {2, 32}}, {8, {5, 40}}, {4096, {2, 8192}}, {0, {2, 0}}, {64, {9, 576}}};
  CHECK(sizes_of(mcm::shim::top_sizes(sizes, 8)) == std::vector<std::uint64_t>{64, 8, 4096, 16, 0});
  CHECK(sizes_of(mcm::shim::top_sizes(sizes, 2)) == std::vector<std::uint64_t>{64, 8});
  CHECK(mcm::shim::top_sizes({}, 8).empty());
}

TEST_CASE("pattern tally: packed and unpacked unchanged, damaged words are refused", "[pattern]") {
  RankTally t(4);
  send(t, 3, 5600, 4);
  send(t, 1, 8, 2);
  send(t, RankTally::kOutside, 12);
  const std::vector<std::uint64_t> words = t.pack();
  RankTally back(1);
  REQUIRE(RankTally::unpack(words.data(), words.size(), 4, &back));
  CHECK(back.to() == t.to());
  CHECK(back.outside() == t.outside());
  CHECK(back.buckets() == t.buckets());
  CHECK(sizes_of(mcm::shim::top_sizes(back.sizes(), 8)) == std::vector<std::uint64_t>{5600, 8, 12});

  CHECK_FALSE(RankTally::unpack(words.data(), words.size() - 1, 4, &back));  // cut short
  std::vector<std::uint64_t> longer = words;
  longer.push_back(0);
  CHECK_FALSE(RankTally::unpack(longer.data(), longer.size(), 4, &back));  // trailing words
  CHECK_FALSE(RankTally::unpack(words.data(), words.size(), 3, &back));    // rank 3 of 3
  std::vector<std::uint64_t> huge = words;
  huge[0] = UINT64_MAX;  // the destination count
  CHECK_FALSE(RankTally::unpack(huge.data(), huge.size(), 4, &back));
  const RankTally empty(2);
  const std::vector<std::uint64_t> nothing = empty.pack();
  CHECK(RankTally::unpack(nothing.data(), nothing.size(), 2, &back));
  CHECK(back.total() == Traffic{});
}

TEST_CASE("pattern merge: the matrix, the totals, and sizes merged before ranking", "[pattern]") {
  std::vector<RankTally> ranks(3, RankTally(3));
  // Size 20 is second on ranks 0 and 1 but first over the run.
  send(ranks[0], 1, 10, 5);
  send(ranks[0], 2, 20, 4);
  send(ranks[1], 0, 30, 5);
  send(ranks[1], 2, 20, 4);
  send(ranks[2], RankTally::kOutside, 7);
  const mcm::Pattern p = mcm::shim::merge(ranks);
  CHECK(p.ranks == 3);
  CHECK(p.matrix[0][1] == Traffic{5, 50});
  CHECK(p.matrix[0][2] == Traffic{4, 80});
  CHECK(p.matrix[1][0] == Traffic{5, 150});
  CHECK(p.matrix[2] == std::vector<Traffic>(3));
  CHECK(p.outside_world == Traffic{1, 7});
  CHECK(p.total == Traffic{19, 367});
  // 20 (8 messages), then 30 and 10 (5 each; 30 has more bytes), then 7.
  CHECK(p.dominant_sizes == std::vector<std::uint64_t>{20, 30, 10, 7});
  CHECK(sizes_of(p.top_sizes) == p.dominant_sizes);
  CHECK(p.top_sizes[0].traffic == Traffic{8, 160});
  REQUIRE(p.histogram.size() == 3);  // 7; 10; 20 and 30
  CHECK(p.histogram[2].min == 16);
  CHECK(p.histogram[2].traffic == Traffic{13, 310});
}

TEST_CASE("pattern merge: at most 8 dominant sizes", "[pattern]") {
  std::vector<RankTally> ranks(1, RankTally(1));
  for (std::uint64_t s = 1; s <= 12; ++s) send(ranks[0], 0, s, static_cast<int>(s));
  const mcm::Pattern p = mcm::shim::merge(ranks);
  CHECK(p.dominant_sizes == std::vector<std::uint64_t>{12, 11, 10, 9, 8, 7, 6, 5});
}

TEST_CASE("pattern files: pattern.yaml reads back as written", "[pattern]") {
  std::vector<RankTally> ranks(2, RankTally(2));
  send(ranks[0], 1, 5600, 3);
  send(ranks[0], 1, 0);
  send(ranks[1], 0, 8, 7);
  send(ranks[1], RankTally::kOutside, 1 << 20);
  const mcm::Pattern p = mcm::shim::merge(ranks);
  const mcm::Pattern back = mcm::parse_pattern(mcm::shim::pattern_yaml(p), "pattern.yaml");
  CHECK(back.ranks == p.ranks);
  CHECK(back.total == p.total);
  CHECK(back.dominant_sizes == std::vector<std::uint64_t>{8, 5600, 1 << 20, 0});
  CHECK(sizes_of(back.top_sizes) == back.dominant_sizes);
  REQUIRE(back.histogram.size() == p.histogram.size());
  for (std::size_t i = 0; i < p.histogram.size(); ++i) {
    CHECK(back.histogram[i].min == p.histogram[i].min);
    CHECK(back.histogram[i].traffic == p.histogram[i].traffic);
  }
  CHECK(back.matrix == p.matrix);
  CHECK(back.outside_world == p.outside_world);
}

TEST_CASE("pattern files: a run without messages writes an empty pattern the loader refuses",
          "[pattern]") {
  const std::string text = mcm::shim::pattern_yaml(mcm::shim::merge({RankTally(2), RankTally(2)}));
  CHECK(text.find("dominant_sizes: []\n") != std::string::npos);
  CHECK_THROWS_WITH(mcm::parse_pattern(text, "pattern.yaml"),
                    Catch::Contains("dominant_sizes must not be empty"));
}

TEST_CASE("pattern files: one rank's file lists its destinations and sizes", "[pattern]") {
  RankTally t(4);
  send(t, 3, 5600, 2);
  send(t, 1, 8, 5);
  const std::string text = mcm::shim::rank_pattern_yaml(2, t);
  CHECK(text.find("\nrank: 2\nranks: 4\nmessages: 7\nbytes: 11240\n") != std::string::npos);
  CHECK(text.find(
            "  - {rank: 1, messages: 5, bytes: 40}\n  - {rank: 3, messages: 2, bytes: 11200}\n") !=
        std::string::npos);
  CHECK(
      text.find(
          "  - {size: 8, messages: 5, bytes: 40}\n  - {size: 5600, messages: 2, bytes: 11200}\n") !=
      std::string::npos);
  CHECK(text.find("outside_world: {messages: 0, bytes: 0}\n") != std::string::npos);
}
