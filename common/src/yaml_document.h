// Reading MCM's YAML files (config, topology, pattern) with errors that point at the
// spot: every ConfigError thrown here reads "FILE:LINE:COLUMN: message" (1-based), or
// "FILE: message" when yaml-cpp has no position. Internal to mcm::common.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "text.h"

namespace mcm::yaml {

using mcm::join;  // "a, b, c" (text.h)

/// Throws ConfigError "FILE:LINE:COLUMN: message" ("FILE: message" for a null mark).
[[noreturn]] void fail(const std::string& file, const YAML::Mark& mark, const std::string& message);

/// "FILE:LINE:COLUMN: " (or "FILE: "), the prefix fail() puts before its message.
std::string position(const std::string& file, const YAML::Mark& mark);

/// The whole file. Throws ConfigError "cannot read WHAT 'PATH': <strerror>" (also for a
/// directory).
std::string read_file(const std::string& path, std::string_view what);

/// The single document of `text`, or a null node for an empty text. Throws ConfigError
/// for YAML syntax errors and for more than one document.
YAML::Node parse_document(const std::string& text, const std::string& file);

/// Checks that `map` (a map node at `path`, "" for the top level) has no key twice, only
/// keys among `allowed` and every key of `required`. Messages name the key and list the
/// valid ones.
void check_keys(const std::string& file, const YAML::Node& map, const std::string& path,
                const std::vector<std::string_view>& allowed,
                const std::vector<std::string_view>& required = {});

/// `node` as an integer in [lo, hi]; else fail(... "PATH must be an integer between LO and
/// HI", or "... of at least LO" when HI is the largest long long) at `at`, by default the
/// node's own position. Quoted scalars are strings, not numbers.
long long integer(const std::string& file, const YAML::Node& node, const std::string& path,
                  long long lo, long long hi, const YAML::Mark* at = nullptr);

/// `node` as a finite number in [lo, hi] (hi may be infinity); else fail(... "PATH must be
/// a number ...").
double number(const std::string& file, const YAML::Node& node, const std::string& path, double lo,
              double hi);

/// `node` as a non-empty string; else fail(... "PATH must be a non-empty string").
std::string text(const std::string& file, const YAML::Node& node, const std::string& path);

/// `node` as "ADDRESS:PORT" split in two (the address is not resolved); else fail(...
/// "PATH must be ADDRESS:PORT with a port 1..65535").
std::pair<std::string, int> endpoint(const std::string& file, const YAML::Node& node,
                                     const std::string& path);

/// `node` as a sequence; else fail(... "PATH must be a list" + hint).
void expect_list(const std::string& file, const YAML::Node& node, const std::string& path,
                 std::string_view hint = "");

/// `node` as a map; else fail(... "PATH must be a map" + hint).
void expect_map(const std::string& file, const YAML::Node& node, const std::string& path,
                std::string_view hint = "");

}  // namespace mcm::yaml
