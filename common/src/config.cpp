#include "mcm/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <vector>

#include "mcm/error.h"

namespace mcm {
namespace {

constexpr std::string_view kModeNames[] = {"off", "record", "relay", "adaptive"};

/// Where a value sits: the file, the dotted key path ("daemon.log_level") and the mark of
/// its key, which every message about the value points at.
struct Site {
  const std::string& file;
  std::string path;
  YAML::Mark mark;
};

[[noreturn]] void fail(const std::string& file, const YAML::Mark& mark,
                       const std::string& message) {
  if (mark.is_null()) throw ConfigError(file + ": " + message);
  throw ConfigError(file + ":" + std::to_string(mark.line + 1) + ":" +
                    std::to_string(mark.column + 1) + ": " + message);
}

[[noreturn]] void fail(const Site& site, const std::string& message) {
  fail(site.file, site.mark, message);
}

/// One key of a map in the schema and how to validate and store its value.
struct Key {
  std::string_view name;
  std::function<void(const Site&, const YAML::Node& value, Config&)> read;
};

template <class Field>  // Field: Config& -> int&
Key integer(std::string_view name, long long lo, long long hi, Field field) {
  return {name, [=](const Site& site, const YAML::Node& value, Config& config) {
            long long n = 0;
            bool ok = value.IsScalar() && value.Tag() != "!";  // "!": quoted, a string
            if (ok) {
              const std::string& text = value.Scalar();
              const char* begin = text.data() + (!text.empty() && text[0] == '+');
              const char* end = text.data() + text.size();
              auto [ptr, ec] = std::from_chars(begin, end, n);
              ok = begin != end && ec == std::errc() && ptr == end;
            }
            if (!ok || n < lo || n > hi)
              fail(site, site.path + " must be an integer between " + std::to_string(lo) + " and " +
                             std::to_string(hi));
            field(config) = static_cast<int>(n);
          }};
}

template <class Field>  // Field: Config& -> std::string&
Key text(std::string_view name, Field field) {
  return {name, [=](const Site& site, const YAML::Node& value, Config& config) {
            if (!value.IsScalar() || value.Scalar().empty())
              fail(site, site.path + " must be a non-empty string");
            field(config) = value.Scalar();
          }};
}

std::string join(const std::vector<std::string_view>& words) {
  std::string out;
  for (std::string_view w : words) out += (out.empty() ? "" : ", ") + std::string(w);
  return out;
}

/// A string among `choices`; `store` receives the validated text.
Key one_of(std::string_view name, std::vector<std::string_view> choices,
           std::function<void(Config&, const std::string&)> store) {
  return {name, [=](const Site& site, const YAML::Node& value, Config& config) {
            const bool ok = value.IsScalar() && std::find(choices.begin(), choices.end(),
                                                          value.Scalar()) != choices.end();
            if (!ok) {
              const std::string got = value.IsScalar() ? " (got '" + value.Scalar() + "')" : "";
              fail(site, site.path + " must be one of " + join(choices) + got);
            }
            store(config, value.Scalar());
          }};
}

void read_map(const Site& site, const YAML::Node& map, const std::vector<Key>& keys,
              Config& config);

/// A nested map with its own keys. An empty section (`daemon:`) is allowed.
Key section(std::string_view name, const std::vector<Key>& keys) {
  return {name, [&keys](const Site& site, const YAML::Node& value, Config& config) {
            if (value.IsNull()) return;
            if (!value.IsMap()) fail(site, site.path + " must be a map of settings");
            read_map(site, value, keys, config);
          }};
}

// ---- The schema: one line per key. ----

const std::vector<Key>& daemon_keys() {
  static const std::vector<Key> keys = {
      integer("idle_sleep_max_us", 10, 1000000,
              [](Config& c) -> int& { return c.daemon.idle_sleep_max_us; }),
      one_of("log_level", {"trace", "debug", "info", "warn", "error"},
             [](Config& c, const std::string& v) { c.daemon.log_level = v; }),
  };
  return keys;
}

const std::vector<Key>& top_level_keys() {
  static const std::vector<Key> keys = {
      one_of("mode", {std::begin(kModeNames), std::end(kModeNames)},
             [](Config& c, const std::string& v) { c.mode = *parse_mode(v); }),
      text("log_dir", [](Config& c) -> std::string& { return c.log_dir; }),
      section("daemon", daemon_keys()),
  };
  return keys;
}

// ---- The walk. ----

std::string valid_keys(const std::vector<Key>& keys) {
  std::vector<std::string_view> names;
  for (const Key& k : keys) names.push_back(k.name);
  return "valid keys: " + join(names);
}

/// Validates every entry of `map` against `keys`. `site` is the map's own key (its path is
/// empty at the top level).
void read_map(const Site& site, const YAML::Node& map, const std::vector<Key>& keys,
              Config& config) {
  std::map<std::string, YAML::Mark> seen;
  for (const auto& entry : map) {  // entry is a value: it->first would dangle
    const YAML::Node& key = entry.first;
    if (!key.IsScalar()) fail(site.file, key.Mark(), "keys must be plain names");
    const std::string& name = key.Scalar();
    const std::string path = site.path.empty() ? name : site.path + "." + name;
    if (auto [first, inserted] = seen.emplace(name, key.Mark()); !inserted)
      fail(site.file, key.Mark(),
           "duplicate key '" + path + "' (first given on line " +
               std::to_string(first->second.line + 1) + ")");
    auto spec =
        std::find_if(keys.begin(), keys.end(), [&](const Key& k) { return k.name == name; });
    if (spec == keys.end()) {
      const std::string where = site.path.empty() ? "" : " in " + site.path;
      fail(site.file, key.Mark(),
           "unknown key '" + name + "'" + where + " (" + valid_keys(keys) + ")");
    }
    spec->read(Site{site.file, path, key.Mark()}, entry.second, config);
  }
}

}  // namespace

std::string_view to_string(Mode mode) {
  return kModeNames[static_cast<int>(mode)];
}

std::optional<Mode> parse_mode(std::string_view name) {
  for (Mode m : kAllModes)
    if (to_string(m) == name) return m;
  return std::nullopt;
}

Config parse_config(const std::string& text, const std::string& file_name) {
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(text);
  } catch (const YAML::Exception& e) {
    fail(file_name, e.mark, e.msg);
  }
  Config config;
  if (documents.empty() || documents[0].IsNull()) return config;
  if (documents.size() > 1)
    fail(file_name, documents[1].Mark(), "only one YAML document is allowed");
  const YAML::Node& root = documents[0];
  if (!root.IsMap())
    fail(file_name, root.Mark(),
         "the top level must be a map of settings (" + valid_keys(top_level_keys()) + ")");
  read_map(Site{file_name, "", root.Mark()}, root, top_level_keys(), config);
  return config;
}

Config load_config(const std::string& path) {
  auto cannot_read = [&](int error) {
    return ConfigError("cannot read config file '" + path + "': " + std::strerror(error));
  };
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw cannot_read(EISDIR);
  std::ifstream in(path);
  if (!in) throw cannot_read(errno);
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw cannot_read(errno);
  return parse_config(text, path);
}

}  // namespace mcm
