#include "mcm/hostfile.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <optional>

#include "mcm/error.h"

namespace mcm {
namespace {

/// What a hostfile key sets. Names as in Open MPI 4.1's hostfile lexer.
enum class Attribute { slots, max_slots, ignored };

struct AttributeName {
  std::string_view name;
  Attribute attribute;
};

// clang-format off
constexpr AttributeName kAttributes[] = {
    {"slots", Attribute::slots}, {"count", Attribute::slots}, {"cpu", Attribute::slots},
    {"max_slots", Attribute::max_slots}, {"max-slots", Attribute::max_slots},
    {"slots_max", Attribute::max_slots}, {"slots-max", Attribute::max_slots},
    {"cpu_max", Attribute::max_slots}, {"cpu-max", Attribute::max_slots},
    {"max_cpu", Attribute::max_slots}, {"max-cpu", Attribute::max_slots},
    {"count_max", Attribute::max_slots}, {"count-max", Attribute::max_slots},
    {"max_count", Attribute::max_slots}, {"max-count", Attribute::max_slots},
    // Accepted and not needed by MCM.
    {"username", Attribute::ignored}, {"user-name", Attribute::ignored},
    {"user_name", Attribute::ignored}, {"port", Attribute::ignored},
    {"boards", Attribute::ignored}, {"sockets", Attribute::ignored},
    {"sockets_per_board", Attribute::ignored}, {"sockets-per-board", Attribute::ignored},
    {"cores", Attribute::ignored}, {"cores_per_socket", Attribute::ignored},
    {"cores-per-socket", Attribute::ignored}, {"cpu_set", Attribute::ignored},
    {"cpu-set", Attribute::ignored},
};
// clang-format on

std::optional<Attribute> find_attribute(std::string_view name) {
  for (const auto& a : kAttributes)
    if (a.name == name) return a.attribute;
  return std::nullopt;
}

/// A non-negative decimal integer, or nullopt.
std::optional<int> parse_count(std::string_view text) {
  int value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < 0) return std::nullopt;
  return value;
}

/// Splits a line (comment already removed) into words, with '=' as a word of its own so
/// that "slots=4" and "slots = 4" read the same.
std::vector<std::string> tokenize(std::string_view line) {
  std::vector<std::string> tokens;
  std::string current;
  auto flush = [&] {
    if (!current.empty()) tokens.push_back(std::move(current));
    current.clear();
  };
  for (char c : line) {
    if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
      flush();
    } else if (c == '=') {
      flush();
      tokens.emplace_back("=");
    } else {
      current += c;
    }
  }
  flush();
  return tokens;
}

std::string_view strip_comment(std::string_view line) {
  const size_t hash = line.find('#');
  const size_t slashes = line.find("//");
  return line.substr(0, std::min(hash, slashes));
}

/// Per-host state while reading one file.
struct Entry {
  Host host;
  bool counted = false;  // the slot count was given (slots=, max_slots= or a repeat)
  int first_line = 0;
};

class Parser {
 public:
  explicit Parser(const std::string& file_name) : file_(file_name) {}

  void line(std::string_view text, int number) {
    line_ = number;
    const std::vector<std::string> tokens = tokenize(strip_comment(text));
    if (tokens.empty()) return;
    std::string name = tokens[0];
    if (name == "=") fail("expected a host name before '='");
    const bool exclude = name[0] == '^';
    if (exclude) name.erase(0, 1);
    if (const size_t at = name.find('@'); at != std::string::npos) name.erase(0, at + 1);
    if (name.empty()) fail("empty host name in '" + tokens[0] + "'");
    if (name[0] == '+') fail("relative host names like '" + name + "' are not supported");
    if (exclude) {
      excluded_.push_back(name);
      return;  // Open MPI ignores the rest of an exclusion line
    }

    Entry* entry = find(name);
    if (entry == nullptr) {
      entries_.push_back(Entry{Host{name, 1, 0}, false, number});
      entry = &entries_.back();
    } else {
      ++entry->host.slots;  // a repeated line is one more slot, and fixes the count
      entry->counted = true;
    }

    bool got_max = false;
    for (size_t i = 1; i < tokens.size(); i += 3) {
      const std::string& key = tokens[i];
      if (key == "=") fail("expected a key before '='");
      if (i + 1 >= tokens.size() || tokens[i + 1] != "=")
        fail("expected key=value after the host name, got '" + key + "'");
      if (i + 2 >= tokens.size() || tokens[i + 2] == "=") fail("missing value for '" + key + "'");
      const std::string& value = tokens[i + 2];
      const std::optional<Attribute> attribute = find_attribute(key);
      if (!attribute) fail("unknown attribute '" + key + "'");
      if (*attribute == Attribute::ignored) continue;
      const std::optional<int> count = parse_count(value);
      if (*attribute == Attribute::slots) {
        if (!count) fail("bad slots value '" + value + "'");
        if (entry->counted)
          fail("host '" + name + "' already has a slot count (line " +
               std::to_string(entry->first_line) +
               "): list a host once per slot or once with slots=N, not both");
        entry->host.slots = *count;
        entry->counted = true;
        if (entry->host.max_slots != 0 && entry->host.max_slots < *count)
          entry->host.max_slots = *count;
      } else {
        if (!count) fail("bad max_slots value '" + value + "'");
        if (entry->counted && *count < entry->host.slots)
          fail("max_slots=" + value + " is less than the host's " +
               std::to_string(entry->host.slots) + " slots");
        entry->host.max_slots = *count;
        got_max = true;
      }
    }
    if (got_max && !entry->counted) {
      entry->host.slots = entry->host.max_slots;
      entry->counted = true;
    }
  }

  HostList finish() {
    HostList list;
    for (Entry& e : entries_) {
      bool excluded = false;
      for (const std::string& x : excluded_) excluded = excluded || x == e.host.name;
      if (excluded) continue;
      if (!e.counted) e.host.slots = -1;  // listed once, no slots=: Open MPI counts cores
      list.hosts.push_back(std::move(e.host));
    }
    return list;
  }

 private:
  Entry* find(const std::string& name) {
    for (Entry& e : entries_)
      if (e.host.name == name) return &e;
    return nullptr;
  }

  [[noreturn]] void fail(const std::string& message) const {
    throw ConfigError(file_ + ":" + std::to_string(line_) + ": " + message);
  }

  std::string file_;
  int line_ = 0;
  std::vector<Entry> entries_;
  std::vector<std::string> excluded_;
};

}  // namespace

int HostList::total_slots() const {
  if (hosts.empty()) return -1;
  int total = 0;
  for (const Host& h : hosts) {
    if (h.slots < 0) return -1;
    total += h.slots;
  }
  return total;
}

const Host* HostList::find(std::string_view name) const {
  for (const Host& h : hosts)
    if (h.name == name) return &h;
  return nullptr;
}

HostList parse_hostfile(std::istream& in, const std::string& file_name) {
  Parser parser(file_name);
  std::string text;
  for (int number = 1; std::getline(in, text); ++number) parser.line(text, number);
  return parser.finish();
}

HostList read_hostfile(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    const int error = errno;
    throw ConfigError("cannot read hostfile '" + path + "': " + std::strerror(error));
  }
  HostList list = parse_hostfile(in, path);
  if (in.bad()) {
    const int error = errno;
    throw ConfigError("cannot read hostfile '" + path + "': " + std::strerror(error));
  }
  return list;
}

void add_host_list(std::string_view spec, HostList& into, std::string_view option) {
  auto fail = [&](const std::string& message) -> void {
    throw ConfigError(std::string(option) + " '" + std::string(spec) + "': " + message);
  };
  if (spec.empty()) fail("empty host list");
  size_t start = 0;
  while (start <= spec.size()) {
    const size_t comma = std::min(spec.find(',', start), spec.size());
    std::string_view item = spec.substr(start, comma - start);
    start = comma + 1;
    int slots = 1;
    if (const size_t colon = item.rfind(':'); colon != std::string_view::npos) {
      const std::string_view count = item.substr(colon + 1);
      if (count == "*") {
        slots = -1;
      } else if (const std::optional<int> n = parse_count(count); n && *n > 0) {
        slots = *n;
      } else {
        fail("bad slots value '" + std::string(count) + "'");
      }
      item = item.substr(0, colon);
    }
    if (const size_t at = item.find('@'); at != std::string_view::npos) item.remove_prefix(at + 1);
    if (item.empty()) fail("empty host name");
    if (item[0] == '+')
      fail("relative host names like '" + std::string(item) + "' are not supported");
    auto known = std::find_if(into.hosts.begin(), into.hosts.end(),
                              [&](const Host& h) { return h.name == item; });
    if (known == into.hosts.end()) {
      into.hosts.push_back(Host{std::string(item), slots, 0});
    } else if (known->slots >= 0) {
      known->slots = slots < 0 ? -1 : known->slots + slots;
    }
  }
}

}  // namespace mcm
