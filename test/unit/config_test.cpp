// The config file: defaults, the schema, and error positions (FILE:LINE:COLUMN).
#include "mcm/config.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>

#include "config_error.h"
#include "mcm/error.h"

namespace {

/// A file under /tmp holding `text`, removed when the test ends (even when it fails).
struct TempFile {
  explicit TempFile(const std::string& text) {
    char name[] = "/tmp/mcm_config_test_XXXXXX";
    const int fd = mkstemp(name);
    if (fd >= 0) close(fd);
    path = name;
    std::ofstream(path) << text;
  }
  ~TempFile() { std::remove(path.c_str()); }
  std::string path;
};

std::string error_of(const std::string& text) {
  return config_error_of([&] { mcm::parse_config(text, "mcm.yaml"); });
}

}  // namespace

TEST_CASE("config: an empty file gives the defaults", "[config]") {
  for (const char* text : {"", "# only a comment\n", "---\n"}) {
    const mcm::Config c = mcm::parse_config(text, "mcm.yaml");
    CHECK(c.mode == mcm::Mode::off);
    CHECK(c.log_dir.empty());
    CHECK(c.daemon.idle_sleep_max_us == 200000);
    CHECK(c.daemon.log_level == "info");
    CHECK(c.daemon.nice == -15);
  }
}

TEST_CASE("config: every key is read", "[config]") {
  const mcm::Config c = mcm::parse_config(
      "mode: relay\n"
      "log_dir: /tmp/run 1\n"
      "daemon:\n"
      "  idle_sleep_max_us: 10\n"
      "  log_level: \"debug\"\n"
      "  nice: 5\n",
      "mcm.yaml");
  CHECK(c.daemon.nice == 5);
  CHECK(c.mode == mcm::Mode::relay);
  CHECK(c.log_dir == "/tmp/run 1");
  CHECK(c.daemon.idle_sleep_max_us == 10);
  CHECK(c.daemon.log_level == "debug");
  CHECK(
      mcm::parse_config("daemon:\n  idle_sleep_max_us: 1000000\n", "f").daemon.idle_sleep_max_us ==
      1000000);
  CHECK(mcm::parse_config("daemon:\n", "f").daemon.log_level == "info");  // empty section
  CHECK(mcm::parse_config("relay:\n  max_message_bytes: 1048576\n", "f").relay.max_message_bytes ==
        1048576);
  CHECK(mcm::parse_config("relay:\n", "f").relay.max_message_bytes == 64LL << 30);
  CHECK(error_of("relay:\n  max_message_bytes: 1000\n").find("max_message_bytes") !=
        std::string::npos);  // below 1 MiB
}

TEST_CASE("config: YAML syntax errors carry file:line:column", "[config]") {
  CHECK(error_of("mode: off\nlog_dir: a: b\n") == "mcm.yaml:2:11: illegal map value");
  CHECK(error_of("mode: off\ndaemon:\n  log_level: info\n bad: 1\n") ==
        "mcm.yaml:4:2: end of map not found");
  CHECK(error_of("mode: off\nlog_dir: [a, b\n") == "mcm.yaml:3:1: end of sequence flow not found");
  CHECK(error_of("mode: off\n\tlog_dir: x\n") ==
        "mcm.yaml:2:1: illegal tab when looking for indentation");
}

TEST_CASE("config: unknown keys are named, with the valid ones", "[config]") {
  CHECK(error_of("mode: off\nmoode: relay\n") ==
        "mcm.yaml:2:1: unknown key 'moode' (valid keys: mode, log_dir, daemon, relay, runtime, "
        "liveness, routes, migration)");
  CHECK(error_of("daemon:\n  log_level: info\n  idle_sleep: 5\n") ==
        "mcm.yaml:3:3: unknown key 'idle_sleep' in daemon (valid keys: idle_sleep_max_us, "
        "log_level, nice)");
}

TEST_CASE("config: wrong types and values", "[config]") {
  const std::string range = "daemon.idle_sleep_max_us must be an integer between 10 and 1000000";
  CHECK(error_of("# c\nmode: off\ndaemon:\n  idle_sleep_max_us: abc\n") ==
        "mcm.yaml:4:3: " + range);
  CHECK(error_of("daemon:\n  idle_sleep_max_us: 9\n") == "mcm.yaml:2:3: " + range);
  CHECK(error_of("daemon:\n  idle_sleep_max_us: 1000001\n") == "mcm.yaml:2:3: " + range);
  CHECK(error_of("daemon:\n  idle_sleep_max_us: \"2000\"\n") == "mcm.yaml:2:3: " + range);
  CHECK(error_of("daemon:\n  idle_sleep_max_us: 1.5\n") == "mcm.yaml:2:3: " + range);
  CHECK(error_of("daemon:\n  idle_sleep_max_us: [1]\n") == "mcm.yaml:2:3: " + range);
  const std::string nice = "daemon.nice must be an integer between -20 and 19";
  CHECK(error_of("daemon:\n  nice: -21\n") == "mcm.yaml:2:3: " + nice);
  CHECK(error_of("daemon:\n  nice: 20\n") == "mcm.yaml:2:3: " + nice);
  CHECK(mcm::parse_config("daemon:\n  nice: -20\n", "f").daemon.nice == -20);
  CHECK(error_of("mode: fast\n") ==
        "mcm.yaml:1:1: mode must be one of off, record, relay, adaptive (got 'fast')");
  CHECK(error_of("daemon:\n  log_level: verbose\n") ==
        "mcm.yaml:2:3: daemon.log_level must be one of trace, debug, info, warn, error (got "
        "'verbose')");
  CHECK(error_of("log_dir: [a]\n") == "mcm.yaml:1:1: log_dir must be a non-empty string");
  CHECK(error_of("log_dir:\n") == "mcm.yaml:1:1: log_dir must be a non-empty string");
  CHECK(error_of("daemon: 5\n") == "mcm.yaml:1:1: daemon must be a map of settings");
  CHECK(error_of("- mode\n") ==
        "mcm.yaml:1:1: the top level must be a map of settings (valid keys: mode, log_dir, "
        "daemon, relay, runtime, liveness, routes, migration)");
}

TEST_CASE("config: duplicate keys and extra documents are errors", "[config]") {
  CHECK(error_of("mode: off\nlog_dir: /a\nmode: relay\n") ==
        "mcm.yaml:3:1: duplicate key 'mode' (first given on line 1)");
  CHECK(error_of("mode: off\n---\nmode: relay\n") ==
        "mcm.yaml:3:1: only one YAML document is allowed");
}

TEST_CASE("config: load_config reads files and reports unreadable ones", "[config]") {
  CHECK_THROWS_WITH(mcm::load_config("/nonexistent/mcm.yaml"),
                    "cannot read config file '/nonexistent/mcm.yaml': No such file or directory");
  CHECK_THROWS_WITH(mcm::load_config("/"), "cannot read config file '/': Is a directory");

  const TempFile file("mode: record\ndaemon:\n  log_level: warn\n");
  const mcm::Config c = mcm::load_config(file.path);
  CHECK(c.mode == mcm::Mode::record);
  CHECK(c.daemon.log_level == "warn");

  const TempFile bad("mode: record\ndaemon:\n  log_level: loud\n");
  CHECK_THROWS_WITH(mcm::load_config(bad.path), Catch::StartsWith(bad.path + ":3:3: "));
}

TEST_CASE("config: mode names round-trip", "[config]") {
  for (mcm::Mode m : mcm::kAllModes) CHECK(mcm::parse_mode(mcm::to_string(m)) == m);
  CHECK_FALSE(mcm::parse_mode("OFF").has_value());
}

TEST_CASE("config: the runtime section", "[config]") {
  const mcm::Config c = mcm::parse_config(
      "runtime:\n  medium_factor: 1.5\n  high_factor: 4\n  min_excess_us: 200\n"
      "  noise_factor: 2.5\n  consecutive: 5\n  return_after_ms: 2000\n  probe_interval_ms: 100\n",
      "mcm.yaml");
  CHECK(c.runtime.medium_factor == 1.5);
  CHECK(c.runtime.high_factor == 4.0);
  CHECK(c.runtime.min_excess_us == 200);
  CHECK(c.runtime.noise_factor == 2.5);
  CHECK(c.runtime.consecutive == 5);
  CHECK(c.runtime.return_after_ms == 2000);
  CHECK(c.runtime.probe_interval_ms == 100);
  CHECK(error_of("runtime:\n  medium_factor: 3\n  high_factor: 2\n") ==
        "mcm.yaml:2:3: runtime.high_factor (2) must be at least runtime.medium_factor (3): the "
        "high zone starts above the medium one");
  CHECK(error_of("runtime:\n  consecutive: 0\n") ==
        "mcm.yaml:2:3: runtime.consecutive must be an integer between 1 and 1000");
  CHECK(error_of("runtime:\n  medium_factor: fast\n") ==
        "mcm.yaml:2:18: runtime.medium_factor must be a number between 1 and 1000 (got 'fast')");
  CHECK(error_of("runtime:\n  zones: 3\n") ==
        "mcm.yaml:2:3: unknown key 'zones' in runtime (valid keys: medium_factor, high_factor, "
        "min_excess_us, noise_factor, consecutive, return_after_ms, probe_interval_ms, "
        "detour_min_gain, flip_routes_ms)");
  CHECK(mcm::parse_config("", "mcm.yaml").runtime.detour_min_gain == 0.1);
  CHECK(mcm::parse_config("runtime:\n  detour_min_gain: 0.25\n", "mcm.yaml")
            .runtime.detour_min_gain == 0.25);
  CHECK(error_of("runtime:\n  detour_min_gain: 1.5\n") ==
        "mcm.yaml:2:20: runtime.detour_min_gain must be a number between 0 and 0.9 (got '1.5')");
}

TEST_CASE("config: the liveness section", "[config]") {
  const mcm::Config defaults = mcm::parse_config("", "mcm.yaml");
  CHECK(defaults.liveness.heartbeat_ms == 1000);
  CHECK(defaults.liveness.timeout_s == 15);
  CHECK(defaults.liveness.stall_warning_s == 60);
  const mcm::Config c = mcm::parse_config(
      "liveness:\n  heartbeat_ms: 250\n  timeout_s: 5\n  stall_warning_s: 20\n", "mcm.yaml");
  CHECK(c.liveness.heartbeat_ms == 250);
  CHECK(c.liveness.timeout_s == 5);
  CHECK(c.liveness.stall_warning_s == 20);
  CHECK(error_of("liveness:\n  heartbeat_ms: 3000\n  timeout_s: 5\n") ==
        "mcm.yaml:2:3: liveness.timeout_s (5 s) must be at least twice liveness.heartbeat_ms "
        "(3000 ms): one late heartbeat is not a lost daemon");
  CHECK(error_of("liveness:\n  timeout_s: 0\n") ==
        "mcm.yaml:2:3: liveness.timeout_s must be an integer between 1 and 3600");
  CHECK(error_of("liveness:\n  deadline: 3\n") ==
        "mcm.yaml:2:3: unknown key 'deadline' in liveness (valid keys: heartbeat_ms, timeout_s, "
        "stall_warning_s)");
}

TEST_CASE("config: the migration section names the job, its key and each VM's lmcd", "[config]") {
  const mcm::Config c = mcm::parse_config(
      "migration:\n"
      "  job: job-a1\n"
      "  key_file: keys/job.key\n"
      "  lmcd: {vm1: 10.77.0.101:7800, vm2.cluster.example: h2.example:7800}\n"
      "  domains: {vm1: guest-17}\n",
      "/etc/mcm/mcm.yaml");
  REQUIRE(c.migration.enabled());
  CHECK(c.migration.job == "job-a1");
  CHECK(c.migration.key_file == "/etc/mcm/keys/job.key");  // relative to the config file
  CHECK(c.migration.where == "/etc/mcm/mcm.yaml:3:13: migration.key_file");
  CHECK(c.migration.lmcd.at("vm2.cluster.example") == "h2.example:7800");
  CHECK(c.migration.domains.at("vm1") == "guest-17");
  CHECK_FALSE(mcm::parse_config("mode: adaptive\n", "mcm.yaml").migration.enabled());
}

TEST_CASE("config: a wrong migration section is an error at its line", "[config]") {
  CHECK(error_of("migration:\n  job: j\n  key_file: k\n") ==
        "mcm.yaml:2:3: migration needs the key 'lmcd'");
  CHECK(error_of("migration:\n  job: j\n  key_file: k\n  lmcd: {vm1: 10.0.0.1}\n") ==
        "mcm.yaml:4:15: migration.lmcd.vm1 must be ADDRESS:PORT with a port 1..65535 (got "
        "'10.0.0.1')");
  CHECK(error_of("migration:\n  job: a job\n  key_file: k\n  lmcd: {vm1: h:1}\n") ==
        "mcm.yaml:2:8: migration.job must be a name of 1..31 characters of [A-Za-z0-9._:-] (got "
        "'a job')");
  CHECK_THAT(error_of("migration:\n  job: j\n  key_file: k\n  lmcd: [h:1]\n"),
             Catch::Contains("mcm.yaml:4:9: migration.lmcd must be a map of VM names to "
                             "ADDRESS:PORT"));
  CHECK_THAT(error_of("migration:\n  job: j\n  key_file: k\n  lmcd: {vm1: h:1}\n  keyfile: x\n"),
             Catch::Contains("mcm.yaml:5:3: unknown key 'keyfile'"));
}
