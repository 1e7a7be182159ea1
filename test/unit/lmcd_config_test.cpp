// lmcd's configuration file (mcm/lmcd_config.h): every key read, key files loaded, and
// errors that name the file, line and column.
#include "mcm/lmcd_config.h"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "config_error.h"

namespace {

/// A directory under /tmp with an operator key and a job key, removed at the end.
struct KeyDir {
  KeyDir() {
    char name[] = "/tmp/mcm_lmcd_config_test_XXXXXX";
    path = mkdtemp(name);
    std::ofstream(path + "/operator.key") << std::string(64, 'a') << "\n";
    std::ofstream(path + "/job.key")
        << "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
    std::ofstream(path + "/bad.key") << "not a key";
  }
  ~KeyDir() {
    for (const char* f : {"/operator.key", "/job.key", "/bad.key"}) std::remove((path + f).c_str());
    rmdir(path.c_str());
  }
  std::string path;
};

const char* kFull = R"(host: h2
listen: 10.77.0.102:7800
libvirt_uri: qemu+tcp://10.77.0.102:16509/system
operator_key_file: operator.key
capacity: 3
peers:
  - {host: h1, address: 10.77.0.101:7800, libvirt_uri: qemu+tcp://10.77.0.101:16509/system}
  - {host: h3, address: 10.77.0.103:7800, libvirt_uri: qemu+tcp://10.77.0.103:16509/system}
jobs:
  - id: job-a1
    key_file: job.key
    domains: {vm1: 10.77.0.1, vm3: 10.77.0.3}
detection: {source_fraction: 0.6, min_excess_us: 700, guest_fraction: 0.4, min_guests: 2, sustain_s: 4, report_ttl_s: 6,
            link_check: false}
decision: {cooldown_s: 60, status_ttl_s: 5}
migration: {bandwidth_mib_s: 100, timeout_s: 90, dry_run: true}
report_interval_s: 0.5
status_interval_s: 2
)";

std::string error_of(const std::string& text, const std::string& dir) {
  return config_error_of([&] { mcm::parse_lmcd_config(text, "lmcd.yaml", dir); });
}

}  // namespace

TEST_CASE("lmcd config: every key is read, key files relative to the file") {
  KeyDir keys;
  mcm::LmcdConfig c = mcm::parse_lmcd_config(kFull, "lmcd.yaml", keys.path);
  CHECK(c.host == "h2");
  CHECK(c.listen_address == "10.77.0.102");
  CHECK(c.listen_port == 7800);
  CHECK(c.libvirt_uri == "qemu+tcp://10.77.0.102:16509/system");
  CHECK(c.operator_key[0] == 0xaa);
  CHECK(c.capacity == 3);
  REQUIRE(c.peers.size() == 2);
  CHECK(c.peers[1].host == "h3");
  CHECK(c.peers[1].address == "10.77.0.103:7800");
  REQUIRE(c.jobs.size() == 1);
  CHECK(c.jobs[0].id == "job-a1");
  CHECK(c.jobs[0].key[1] == 0x11);
  CHECK(c.jobs[0].domains.at("vm3") == "10.77.0.3");
  CHECK(c.source_fraction == 0.6);
  CHECK(c.min_excess_us == 700);
  CHECK(c.guest_fraction == 0.4);
  CHECK(c.min_guests == 2);
  CHECK(c.sustain_s == 4);
  CHECK(c.report_ttl_s == 6);
  CHECK_FALSE(c.link_check);
  CHECK(c.cooldown_s == 60);
  CHECK(c.status_ttl_s == 5);
  CHECK(c.bandwidth_mib_s == 100);
  CHECK(c.timeout_s == 90);
  CHECK(c.dry_run);
  CHECK(c.report_interval_s == 0.5);
  CHECK(c.status_interval_s == 2);

  mcm::LmcdConfig minimal = mcm::parse_lmcd_config(
      "host: h1\nlisten: 0.0.0.0:7800\noperator_key_file: operator.key\n", "f", keys.path);
  CHECK(minimal.libvirt_uri == "qemu:///system");
  CHECK(minimal.peers.empty());
  CHECK(minimal.cooldown_s == 120);
  CHECK_FALSE(minimal.dry_run);
  CHECK(minimal.link_check);
}

TEST_CASE("lmcd config: mistakes name the file, line and column") {
  KeyDir keys;
  const std::string head = "host: h2\nlisten: 10.77.0.102:7800\noperator_key_file: operator.key\n";
  CHECK_THAT(error_of("host: h2\nlisten: 10.77.0.102:7800\n", keys.path),
             Catch::Contains("operator_key_file"));
  CHECK_THAT(
      error_of("host: h2\nlisten: 10.77.0.102\noperator_key_file: operator.key\n", keys.path),
      Catch::Contains("lmcd.yaml:2:9: listen must be ADDRESS:PORT"));
  CHECK_THAT(error_of("host: h 2\nlisten: a:1\noperator_key_file: operator.key\n", keys.path),
             Catch::Contains("lmcd.yaml:1:7: host must be a name"));
  CHECK_THAT(error_of("host: h2\nlisten: a:1\noperator_key_file: bad.key\n", keys.path),
             Catch::Contains("lmcd.yaml:3:20: operator_key_file: key file"));
  CHECK_THAT(error_of("host: h2\nlisten: a:1\noperator_key_file: missing.key\n", keys.path),
             Catch::Contains("cannot read key file"));
  CHECK_THAT(error_of(head + "cooldown_s: 5\n", keys.path), Catch::Contains("lmcd.yaml:4:1"));
  CHECK_THAT(error_of(head + "peers:\n  - {host: h2, address: a:1, libvirt_uri: x}\n", keys.path),
             Catch::Contains("peers[0].host: h2 is named twice (or is this host)"));
  CHECK_THAT(error_of(head + "jobs:\n  - {id: operator, key_file: job.key, domains: {vm1: a}}\n",
                      keys.path),
             Catch::Contains("'operator' is taken"));
  CHECK_THAT(error_of(head + "jobs:\n  - {id: a, key_file: job.key, domains: {vm1: x}}\n"
                             "  - {id: b, key_file: job.key, domains: {vm1: y}}\n",
                      keys.path),
             Catch::Contains("vm1 belongs to two jobs"));
  CHECK_THAT(error_of(head + "detection: {link_check: maybe}\n", keys.path),
             Catch::Contains("detection.link_check"));
  CHECK_THAT(error_of(head + "detection: {guest_fraction: 1.5}\n", keys.path),
             Catch::Contains("detection.guest_fraction must be a number"));
  CHECK_THAT(error_of(head + "migration: {dry_run: maybe}\n", keys.path),
             Catch::Contains("migration.dry_run must be true or false"));
}
