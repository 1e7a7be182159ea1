#include "mcm/config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <sstream>
#include <type_traits>
#include <vector>

#include "mcm/control/messages.h"
#include "mcm/error.h"
#include "yaml_document.h"

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

using yaml::fail;
using yaml::join;
using yaml::position;

[[noreturn]] void fail(const Site& site, const std::string& message) {
  fail(site.file, site.mark, message);
}

/// One key of a map in the schema and how to validate and store its value.
struct Key {
  std::string_view name;
  std::function<void(const Site&, const YAML::Node& value, Config&)> read;
};

template <class Field>  // Field: Config& -> int& or long long&
Key integer(std::string_view name, long long lo, long long hi, Field field) {
  return {name, [=](const Site& site, const YAML::Node& value, Config& config) {
            const long long n = yaml::integer(site.file, value, site.path, lo, hi, &site.mark);
            auto& target = field(config);
            target = static_cast<std::remove_reference_t<decltype(target)>>(n);
          }};
}

template <class Field>  // Field: Config& -> double&
Key number(std::string_view name, double lo, double hi, Field field) {
  return {name, [=](const Site& site, const YAML::Node& value, Config& config) {
            field(config) = yaml::number(site.file, value, site.path, lo, hi);
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

/// One `routes` entry: a map with exactly the keys from, to and via. Only the shape is
/// checked here; names and indices are resolved against the allocation (routes.h).
RouteSpec read_route(const Site& site, const YAML::Node& item, const std::string& path) {
  if (!item.IsMap())
    fail(site.file, item.Mark(), path + " must be a map {from: VM, to: VM, via: VM}");
  RouteSpec r;
  r.where = position(site.file, item.Mark()) + path;
  const std::pair<const char*, std::pair<std::string*, std::string*>> fields[] = {
      {"from", {&r.from, &r.where_from}},
      {"to", {&r.to, &r.where_to}},
      {"via", {&r.via, &r.where_via}}};
  for (const auto& entry : item) {
    const YAML::Node& key = entry.first;
    const auto* field = std::find_if(std::begin(fields), std::end(fields), [&](const auto& f) {
      return key.IsScalar() && key.Scalar() == f.first;
    });
    if (field == std::end(fields))
      fail(site.file, key.Mark(),
           "unknown key " + (key.IsScalar() ? "'" + key.Scalar() + "' " : std::string()) + "in " +
               path + " (valid keys: from, to, via)");
    const std::string field_path = path + "." + field->first;
    if (!field->second.first->empty())
      fail(site.file, key.Mark(), "duplicate key '" + field_path + "'");
    const YAML::Node& value = entry.second;
    if (!value.IsScalar() || value.Scalar().empty())
      fail(site.file, key.Mark(), field_path + " must be a VM index or host name");
    *field->second.first = value.Scalar();
    *field->second.second = position(site.file, key.Mark()) + field_path;
  }
  for (const auto& f : fields)
    if (f.second.first->empty())
      fail(site.file, item.Mark(), path + " needs from, to and via (missing " + f.first + ")");
  return r;
}

/// `routes:` a list of route maps, appended to Config::routes in order.
Key route_list(std::string_view name) {
  return {name, [](const Site& site, const YAML::Node& value, Config& config) {
            if (value.IsNull()) return;
            if (!value.IsSequence())
              fail(site, site.path + " must be a list of {from: VM, to: VM, via: VM} maps");
            for (std::size_t i = 0; i < value.size(); ++i)
              config.routes.push_back(
                  read_route(site, value[i], site.path + "[" + std::to_string(i) + "]"));
          }};
}

/// A map of VM names to `what` (each value a non-empty string, checked by `check`).
std::map<std::string, std::string> name_map(
    const Site& site, const YAML::Node& node, const std::string& path, std::string_view what,
    const std::function<void(const YAML::Node&, const std::string&)>& check) {
  yaml::expect_map(site.file, node, path, " of VM names to " + std::string(what));
  std::map<std::string, std::string> out;
  for (const auto& entry : node) {
    const std::string vm = yaml::text(site.file, entry.first, path + " key");
    const std::string at = path + "." + vm;
    check(entry.second, at);
    if (!out.emplace(vm, yaml::text(site.file, entry.second, at)).second)
      fail(site.file, entry.first.Mark(), "duplicate key '" + at + "'");
  }
  return out;
}

/// `migration:` (MigrationConfig): job, key_file and lmcd are required.
Key migration_section(std::string_view name) {
  return {
      name, [](const Site& site, const YAML::Node& value, Config& config) {
        const std::string& f = site.file;
        yaml::expect_map(f, value, site.path, " {job, key_file, lmcd, domains}");
        yaml::check_keys(f, value, site.path, {"job", "key_file", "lmcd", "domains"},
                         {"job", "key_file", "lmcd"});
        MigrationConfig& m = config.migration;
        m.job = yaml::text(f, value["job"], "migration.job");
        const auto control_name = [&](const YAML::Node& n, const std::string& at) {
          const std::string s = yaml::text(f, n, at);
          if (!control::valid_name(s) || s.size() > 31)  // a header's name field
            fail(f, n.Mark(),
                 at + " must be a name of 1..31 characters of [A-Za-z0-9._:-] (got '" + s + "')");
        };
        control_name(value["job"], "migration.job");
        m.key_file = yaml::text(f, value["key_file"], "migration.key_file");
        if (m.key_file[0] != '/') {
          const auto slash = f.rfind('/');
          if (slash != std::string::npos) m.key_file = f.substr(0, slash + 1) + m.key_file;
        }
        m.where = position(f, value["key_file"].Mark()) + "migration.key_file";
        m.lmcd =
            name_map(site, value["lmcd"], "migration.lmcd", "ADDRESS:PORT",
                     [&](const YAML::Node& n, const std::string& at) { yaml::endpoint(f, n, at); });
        if (value["domains"])
          m.domains = name_map(site, value["domains"], "migration.domains", "libvirt domain names",
                               control_name);
      }};
}

// ---- The schema: one line per key. ----

const std::vector<Key>& daemon_keys() {
  static const std::vector<Key> keys = {
      integer("idle_sleep_max_us", 10, 1000000,
              [](Config& c) -> int& { return c.daemon.idle_sleep_max_us; }),
      one_of("log_level", {"trace", "debug", "info", "warn", "error"},
             [](Config& c, const std::string& v) { c.daemon.log_level = v; }),
      integer("nice", -20, 19, [](Config& c) -> int& { return c.daemon.nice; }),
  };
  return keys;
}

const std::vector<Key>& relay_keys() {
  using R = RelayConfig;
  static const std::vector<Key> keys = {
      integer("chunk_bytes", R::kMinChunkBytes, R::kMaxChunkBytes,
              [](Config& c) -> long long& { return c.relay.chunk_bytes; }),
      integer("buffer_bytes", R::kMinBufferBytes, std::numeric_limits<long long>::max(),
              [](Config& c) -> long long& { return c.relay.buffer_bytes; }),
      integer("max_message_bytes", R::kMinMaxMessageBytes, std::numeric_limits<long long>::max(),
              [](Config& c) -> long long& { return c.relay.max_message_bytes; }),
  };
  return keys;
}

const std::vector<Key>& runtime_keys() {
  static const std::vector<Key> keys = {
      number("medium_factor", 1.0, 1000.0,
             [](Config& c) -> double& { return c.runtime.medium_factor; }),
      number("high_factor", 1.0, 1000.0,
             [](Config& c) -> double& { return c.runtime.high_factor; }),
      integer("min_excess_us", 0, 10000000,
              [](Config& c) -> int& { return c.runtime.min_excess_us; }),
      number("noise_factor", 0.0, 1000.0,
             [](Config& c) -> double& { return c.runtime.noise_factor; }),
      integer("consecutive", 1, 1000, [](Config& c) -> int& { return c.runtime.consecutive; }),
      integer("return_after_ms", 10, 3600000,
              [](Config& c) -> int& { return c.runtime.return_after_ms; }),
      integer("probe_interval_ms", 5, 60000,
              [](Config& c) -> int& { return c.runtime.probe_interval_ms; }),
      number("detour_min_gain", 0.0, 0.9,
             [](Config& c) -> double& { return c.runtime.detour_min_gain; }),
      integer("flip_routes_ms", 0, 3600000,
              [](Config& c) -> int& { return c.runtime.flip_routes_ms; }),
  };
  return keys;
}

const std::vector<Key>& liveness_keys() {
  static const std::vector<Key> keys = {
      integer("heartbeat_ms", 100, 60000,
              [](Config& c) -> int& { return c.liveness.heartbeat_ms; }),
      integer("timeout_s", 1, 3600, [](Config& c) -> int& { return c.liveness.timeout_s; }),
      integer("stall_warning_s", 1, 86400,
              [](Config& c) -> int& { return c.liveness.stall_warning_s; }),
  };
  return keys;
}

const std::vector<Key>& top_level_keys() {
  static const std::vector<Key> keys = {
      one_of("mode", {std::begin(kModeNames), std::end(kModeNames)},
             [](Config& c, const std::string& v) { c.mode = *parse_mode(v); }),
      text("log_dir", [](Config& c) -> std::string& { return c.log_dir; }),
      section("daemon", daemon_keys()),
      section("relay", relay_keys()),
      section("runtime", runtime_keys()),
      section("liveness", liveness_keys()),
      route_list("routes"),
      migration_section("migration"),
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
  const YAML::Node root = yaml::parse_document(text, file_name);
  Config config;
  if (root.IsNull()) return config;
  if (!root.IsMap())
    fail(file_name, root.Mark(),
         "the top level must be a map of settings (" + valid_keys(top_level_keys()) + ")");
  read_map(Site{file_name, "", root.Mark()}, root, top_level_keys(), config);
  const RuntimeConfig& r = config.runtime;
  if (r.high_factor < r.medium_factor) {
    auto format = [](double x) {
      std::ostringstream out;
      out << x;
      return out.str();
    };
    const YAML::Node runtime = root["runtime"];
    fail(file_name, runtime ? runtime.Mark() : root.Mark(),
         "runtime.high_factor (" + format(r.high_factor) +
             ") must be at least runtime.medium_factor (" + format(r.medium_factor) +
             "): the high zone starts above the medium one");
  }
  const LivenessConfig& l = config.liveness;
  if (l.timeout_s * 1000LL < 2LL * l.heartbeat_ms) {
    const YAML::Node liveness = root["liveness"];
    fail(file_name, liveness ? liveness.Mark() : root.Mark(),
         "liveness.timeout_s (" + std::to_string(l.timeout_s) +
             " s) must be at least twice liveness.heartbeat_ms (" + std::to_string(l.heartbeat_ms) +
             " ms): one late heartbeat is not a lost daemon");
  }
  return config;
}

Config load_config(const std::string& path) {
  return parse_config(yaml::read_file(path, "config file"), path);
}

}  // namespace mcm
