// pattern.yaml's loader (mcm/pattern.h): a valid file, and each kind of mistake with the
// FILE:LINE:COLUMN of the value it names.
#include "mcm/pattern.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "config_error.h"
#include "mcm/error.h"

namespace {

// 2 ranks: rank 0 sent 8, 8 and 4096 bytes to rank 1; rank 1 sent 0 bytes to rank 0 and
// 100 bytes to a process outside the application.
const std::vector<std::string> kValid = {
    "version: 1",                                            // 1
    "ranks: 2",                                              // 2
    "messages: 5",                                           // 3
    "bytes: 4212",                                           // 4
    "dominant_sizes: [8, 4096, 100, 0]",                     // 5
    "top_sizes:",                                            // 6
    "  - {size: 8, messages: 2, bytes: 16}",                 // 7
    "  - {size: 4096, messages: 1, bytes: 4096}",            // 8
    "  - {size: 100, messages: 1, bytes: 100}",              // 9
    "  - {size: 0, messages: 1, bytes: 0}",                  // 10
    "histogram:",                                            // 11
    "  - {min: 0, max: 0, messages: 1, bytes: 0}",           // 12
    "  - {min: 8, max: 15, messages: 2, bytes: 16}",         // 13
    "  - {min: 64, max: 127, messages: 1, bytes: 100}",      // 14
    "  - {min: 4096, max: 8191, messages: 1, bytes: 4096}",  // 15
    "matrix:",                                               // 16
    "  messages: [[0, 3], [1, 0]]",                          // 17
    "  bytes: [[0, 4112], [0, 0]]",                          // 18
    "outside_world: {messages: 1, bytes: 100}",              // 19
    "untracked_sizes: {messages: 0, bytes: 0}",              // 20
};

/// The valid file with each line `number` (1-based) of `changes` replaced by its text
/// (removed when the text is empty).
std::string with(const std::map<int, std::string>& changes) {
  std::string out;
  for (std::size_t i = 0; i < kValid.size(); ++i) {
    const auto change = changes.find(static_cast<int>(i) + 1);
    const std::string& line = change != changes.end() ? change->second : kValid[i];
    if (!line.empty()) out += line + "\n";
  }
  return out;
}

std::string with(int number, const std::string& text) {
  return with({{number, text}});
}

std::string valid() {
  return with({});
}

std::string error_of(const std::string& text) {
  return config_error_of([&] { mcm::parse_pattern(text, "p.yaml"); });
}

}  // namespace

TEST_CASE("pattern: a valid file is read completely", "[pattern]") {
  const mcm::Pattern p = mcm::parse_pattern(valid(), "p.yaml");
  CHECK(p.ranks == 2);
  CHECK(p.total == mcm::Traffic{5, 4212});
  CHECK(p.dominant_sizes == std::vector<std::uint64_t>{8, 4096, 100, 0});
  REQUIRE(p.top_sizes.size() == 4);
  CHECK(p.top_sizes[1].size == 4096);
  CHECK(p.top_sizes[1].traffic == mcm::Traffic{1, 4096});
  REQUIRE(p.histogram.size() == 4);
  CHECK(p.histogram[2].min == 64);
  CHECK(p.histogram[2].max == 127);
  CHECK(p.histogram[2].traffic == mcm::Traffic{1, 100});
  REQUIRE(p.matrix.size() == 2);
  CHECK(p.matrix[0][1] == mcm::Traffic{3, 4112});
  CHECK(p.matrix[1][0] == mcm::Traffic{1, 0});
  CHECK(p.matrix[0][0] == mcm::Traffic{});
  CHECK(p.outside_world == mcm::Traffic{1, 100});
  CHECK(p.untracked_sizes == mcm::Traffic{});
}

TEST_CASE("pattern: YAML and schema errors name file:line:column", "[pattern]") {
  CHECK(error_of(with(5, "dominant_sizes: [8, 4096")).rfind("p.yaml:6:", 0) == 0);
  CHECK(error_of(valid() + "colour: red\n") ==
        "p.yaml:21:1: unknown key 'colour' (valid keys: version, ranks, messages, bytes, "
        "dominant_sizes, top_sizes, histogram, matrix, outside_world, untracked_sizes)");
  CHECK(error_of(with(20, "")) == "p.yaml:1:1: the file needs the key 'untracked_sizes'");
  CHECK(error_of(with(2, "ranks: two")) ==
        "p.yaml:2:8: ranks must be an integer between 1 and 16777216");
  CHECK(error_of(with(2, "ranks: \"2\"")) ==
        "p.yaml:2:8: ranks must be an integer between 1 and 16777216");
  CHECK(error_of(with(3, "messages: -5")) ==
        "p.yaml:3:11: messages must be an integer of at least 0");
  CHECK(error_of(with(8, "  - {size: 4096, messages: 1, bytes: -4096}")) ==
        "p.yaml:8:38: top_sizes[1].bytes must be an integer of at least 0");
  CHECK(error_of(with(19, "outside_world: [1, 100]")) ==
        "p.yaml:19:16: outside_world must be a map {messages: N, bytes: B}");
  CHECK(error_of(with(1, "version: 2")) ==
        "p.yaml:1:10: version 2 is not supported (this MCM reads version 1)");
  CHECK(error_of("") == "p.yaml: the pattern file is empty");
  CHECK(error_of("- 8\n") == "p.yaml:1:1: the top level must be a map (see docs/pattern.md)");
}

TEST_CASE("pattern: an empty dominant_sizes is an error", "[pattern]") {
  CHECK(error_of(with(5, "dominant_sizes: []")) ==
        "p.yaml:5:17: dominant_sizes must not be empty (a recorded run that sent no "
        "point-to-point message names no sizes)");
}

TEST_CASE("pattern: the sizes must be consistent", "[pattern]") {
  CHECK(error_of(with(5, "dominant_sizes: [8, 100, 4096, 0]")) ==
        "p.yaml:5:21: dominant_sizes[1] must be top_sizes[1].size (the two list the same sizes "
        "in the same order)");
  CHECK(error_of(with(5, "dominant_sizes: [8, 4096, 100]")) ==
        "p.yaml:5:17: dominant_sizes has 3 sizes but top_sizes 4");
  CHECK(error_of(with(8, "  - {size: 4096, messages: 1, bytes: 4000}")) ==
        "p.yaml:8:38: top_sizes[1].bytes must be size x messages (4096 x 1)");
  CHECK(error_of(with(7, "  - {size: 8, messages: 0, bytes: 0}")) ==
        "p.yaml:7:25: top_sizes[0].messages must be at least 1");
  CHECK(error_of(with(9, "  - {size: 4096, messages: 1, bytes: 4096}")) ==
        "p.yaml:9:12: top_sizes[2].size 4096 is listed twice");
  // Ordered by messages, then bytes: 100 bytes may not come before 4096.
  CHECK(error_of(with({{5, "dominant_sizes: [8, 100, 4096, 0]"},
                       {8, "  - {size: 100, messages: 1, bytes: 100}"},
                       {9, "  - {size: 4096, messages: 1, bytes: 4096}"}})) ==
        "p.yaml:9:5: top_sizes must be ordered most frequent first (then most bytes)");
}

TEST_CASE("pattern: the histogram's buckets are power-of-two ranges", "[pattern]") {
  CHECK(error_of(with(14, "  - {min: 60, max: 127, messages: 1, bytes: 100}")) ==
        "p.yaml:14:11: histogram[2].min must be 0 or a power of two");
  CHECK(error_of(with(14, "  - {min: 64, max: 128, messages: 1, bytes: 100}")) ==
        "p.yaml:14:20: histogram[2].max must be 127 (the bucket of min 64)");
  CHECK(error_of(with(14, "  - {min: 64, max: 127, messages: 1, bytes: 200}")) ==
        "p.yaml:14:45: histogram[2].bytes must be between min x messages and max x messages");
  CHECK(error_of(with(13, "  - {min: 4096, max: 8191, messages: 1, bytes: 4096}")) ==
        "p.yaml:14:5: histogram buckets must be in ascending order, each at most once");
}

TEST_CASE("pattern: the matrix has ranks x ranks entries and agrees with the totals", "[pattern]") {
  CHECK(error_of(with(17, "  messages: [[0, 3], [1, 0], [0, 0]]")) ==
        "p.yaml:17:13: matrix.messages must have 2 rows (ranks), not 3");
  CHECK(error_of(with(18, "  bytes: [[0, 4112, 0], [0, 0]]")) ==
        "p.yaml:18:11: matrix.bytes[0] must have 2 entries (ranks), not 3");
  CHECK(error_of(with(18, "  bytes: [[0, 4112], [7, 0]]")) ==
        "p.yaml:4:8: bytes is 4212 but the matrix and outside_world add up to 4219");
  CHECK(error_of(with(18, "  bytes: [[1, 4112], [0, 0]]")) ==
        "p.yaml:18:12: matrix.bytes[0][0] must be 0: matrix.messages has no message there");
  CHECK(error_of(with(17, "  messages: [[0, 4], [1, 0]]")) ==
        "p.yaml:3:11: messages is 5 but the matrix and outside_world add up to 6");
  CHECK(error_of(with(4, "bytes: 4213")) ==
        "p.yaml:4:8: bytes is 4213 but the matrix and outside_world add up to 4212");
  CHECK(error_of(with(12, "  - {min: 0, max: 0, messages: 2, bytes: 0}")) ==
        "p.yaml:3:11: messages is 5 but the histogram's buckets add up to 6");
}

TEST_CASE("pattern: load_pattern names an unreadable file", "[pattern]") {
  CHECK_THROWS_WITH(
      mcm::load_pattern("/nonexistent/pattern.yaml"),
      "cannot read pattern file '/nonexistent/pattern.yaml': No such file or directory");
}
