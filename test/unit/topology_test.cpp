// The topology file (mcm-probe -> mcmrun --paths): round trip, every kind of error with
// its FILE:LINE:COLUMN, and the refusal of a table from other hosts.
#include "mcm/topology.h"

#include <catch2/catch.hpp>

#include "config_error.h"
#include "mcm/error.h"

namespace {

mcm::Topology sample() {
  mcm::Topology t;
  t.hosts = {"vm1", "vm2", "vm3"};
  t.date = "2026-11-23T10:00:00Z";
  t.sizes = {64, 65536};
  t.reference_size = 65536;
  t.latency_us = {mcm::empty_matrix(3), mcm::empty_matrix(3)};
  t.spread_us = {mcm::empty_matrix(3), mcm::empty_matrix(3)};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      if (i != j) {
        t.latency_us[0][i][j] = 10 + i + 0.125 * j;
        t.latency_us[1][i][j] = 600 + 10 * i + j;
        t.spread_us[1][i][j] = 1.5;
      }
  t.latency_us[1][0][1] = mcm::kNotMeasured;  // a hole
  t.alpha_us = mcm::empty_matrix(3);
  t.beta_bytes_per_us = mcm::empty_matrix(3);
  t.alpha_us[0][2] = 9.5;
  t.beta_bytes_per_us[0][2] = 110;
  t.sensibility = std::vector<std::vector<int>>{{0, 1, 2}, {0, 0, 0}, {3, 0, 0}};
  t.sensibility_info.factor = 2.5;
  t.sensibility_info.size = 65536;
  t.sensibility_info.injections = {{0, 1}, {2, 0}};
  t.sensibility_info.possible = 6;
  t.alternatives.assign(3, std::vector<std::vector<int>>(3));
  t.alternatives[0][1] = {2};
  t.detours.assign(3, std::vector<std::vector<mcm::Detour>>(3));
  t.detours[0][1] = {mcm::Detour{2, 1221.5, 2, true}};
  t.detours[1][0] = {mcm::Detour{2, mcm::kNotMeasured, 0, false}};
  t.skipped = {"host vm4: unreachable"};
  t.partial = true;
  return t;
}

std::string error_of(const std::string& text) {
  return config_error_of([&] { mcm::parse_topology(text, "topo.yaml"); });
}

const std::string kMinimal =
    "format: mcm-topology/1\nhosts: [a, b]\nsizes: [64]\nlatency_us:\n  64: [[~, 1], [2, ~]]\n";

}  // namespace

TEST_CASE("a topology survives writing and reading back", "[topology]") {
  const mcm::Topology t = sample();
  const mcm::Topology r = mcm::parse_topology(mcm::to_yaml(t), "topo.yaml");
  CHECK(r.hosts == t.hosts);
  CHECK(r.date == t.date);
  CHECK(r.partial);
  CHECK(r.skipped == t.skipped);
  CHECK(r.sizes == t.sizes);
  CHECK(r.reference_size == 65536);
  CHECK(r.latency_us[0][2][1] == Approx(12.125));
  CHECK(r.latency_us[1][2][0] == Approx(620));
  CHECK_FALSE(mcm::measured(r.latency_us[1][0][1]));
  CHECK_FALSE(mcm::measured(r.latency_us[1][1][1]));
  CHECK(r.spread_us[1][1][2] == Approx(1.5));
  CHECK(r.predict_us(0, 2, 1100) == Approx(9.5 + 10));
  CHECK_FALSE(mcm::measured(r.predict_us(1, 2, 64)));
  REQUIRE(r.sensibility);
  CHECK(*r.sensibility == *t.sensibility);
  CHECK(r.sensibility_info.factor == 2.5);
  CHECK(r.sensibility_info.injections == t.sensibility_info.injections);
  CHECK(r.sensibility_info.possible == 6);
  CHECK(r.alternatives == t.alternatives);
  CHECK(r.detours == t.detours);
}

TEST_CASE("a minimal topology needs only format, hosts, sizes and latency_us", "[topology]") {
  const mcm::Topology t = mcm::parse_topology(kMinimal, "topo.yaml");
  CHECK(t.size() == 2);
  CHECK(t.latency_us[0][1][0] == 2);
  CHECK_FALSE(t.sensibility);
  CHECK(t.alternatives.empty());
}

TEST_CASE("topology errors point at the line and column", "[topology]") {
  CHECK(error_of("hosts: [a, b]\n") == "topo.yaml:1:1: the file needs the key 'format'");
  CHECK(error_of("- a\n") ==
        "topo.yaml:1:1: not an mcm-probe topology: the top level must be a map (format: "
        "mcm-topology/1, hosts: ..., latency_us: ...)");
  CHECK(error_of("format: mcm-topology/9\nhosts: [a, b]\nsizes: [64]\nlatency_us: {}\n") ==
        "topo.yaml:1:9: format 'mcm-topology/9' is not mcm-topology/1 (written by another "
        "version of mcm-probe?)");
  CHECK(error_of(kMinimal + "colour: red\n")
            .rfind("topo.yaml:6:1: unknown key 'colour' (valid keys: format, hosts,", 0) == 0);
  CHECK(error_of("format: mcm-topology/1\nhosts: [a, a]\nsizes: [64]\nlatency_us: {}\n") ==
        "topo.yaml:2:12: host 'a' is listed twice");
  CHECK(error_of("format: mcm-topology/1\nhosts: [a]\nsizes: [64]\nlatency_us: {}\n") ==
        "topo.yaml:2:8: hosts must list at least 2 hosts");
  CHECK(error_of("format: mcm-topology/1\nhosts: [a, b]\nsizes: [64, 8]\nlatency_us: {}\n") ==
        "topo.yaml:3:13: sizes must be ascending without repeats");
  CHECK(error_of(
            "format: mcm-topology/1\nhosts: [a, b]\nsizes: [64]\nlatency_us:\n  64: [[~, 1]]\n") ==
        "topo.yaml:5:7: latency_us.64 has 1 rows, needs 2 rows of 2 values (one per host)");
  CHECK(error_of("format: mcm-topology/1\nhosts: [a, b]\nsizes: [64]\nlatency_us:\n  64: [[~, 1], "
                 "[x, ~]]\n") ==
        "topo.yaml:5:17: latency_us.64[1][0] must be a number of at least 0 (got 'x')");
  CHECK(error_of("format: mcm-topology/1\nhosts: [a, b]\nsizes: [64]\nlatency_us:\n  64: [[3, 1], "
                 "[2, ~]]\n") ==
        "topo.yaml:5:9: latency_us.64[0][0] is a host's path to itself and must be ~");
  CHECK(error_of("format: mcm-topology/1\nhosts: [a, b]\nsizes: [64]\nlatency_us:\n  128: [[~, 1], "
                 "[2, ~]]\n") == "topo.yaml:5:3: latency_us: size 128 is not in sizes");
  CHECK(error_of(kMinimal + "alternatives: [[[], [0]], [[], []]]\n") ==
        "topo.yaml:6:22: alternatives[0][1][0]: intermediate 0 is the path's own source");
  CHECK(error_of(kMinimal + "alternatives: [[[], [5]], [[], []]]\n") ==
        "topo.yaml:6:22: alternatives[0][1][0] must be an integer between 0 and 1");
  CHECK(error_of(kMinimal + "sensibility: [[~, 1.5], [0, ~]]\n") ==
        "topo.yaml:6:19: sensibility[0][1] must be a whole number of injections");
  CHECK(error_of(kMinimal + "partial: maybe\n") == "topo.yaml:6:10: partial must be true or false");
  CHECK(error_of("format: [\n").rfind("topo.yaml:2:1: ", 0) == 0);
  CHECK_THROWS_WITH(
      mcm::load_topology("/nonexistent/topo.yaml"),
      "cannot read topology file '/nonexistent/topo.yaml': No such file or directory");
}

TEST_CASE("the pieces of the fit survive writing and reading back", "[topology][fit]") {
  mcm::Topology t = sample();
  t.pieces.resize(2);
  t.pieces[0].up_to_bytes = 1024;
  t.pieces[1].up_to_bytes = 65536;
  for (mcm::FitPiece& p : t.pieces) p.alpha_us = p.beta_bytes_per_us = mcm::empty_matrix(3);
  t.pieces[0].alpha_us[0][2] = 12.5;
  t.pieces[0].beta_bytes_per_us[0][2] = 1000;
  t.pieces[1].alpha_us[0][2] = 31.25;
  t.pieces[1].beta_bytes_per_us[0][2] = 250;
  const std::string yaml = mcm::to_yaml(t);
  CHECK(yaml.find("  pieces:") != std::string::npos);
  const mcm::Topology r = mcm::parse_topology(yaml, "topo.yaml");
  REQUIRE(r.pieces.size() == 2);
  CHECK(r.pieces[0].up_to_bytes == 1024);
  CHECK(r.pieces[1].up_to_bytes == 65536);
  CHECK(r.pieces[1].alpha_us[0][2] == Approx(31.25));
  CHECK(r.pieces[1].beta_bytes_per_us[0][2] == Approx(250));
  CHECK_FALSE(mcm::measured(r.pieces[0].alpha_us[1][0]));
  // Each size from the line of its own range; a bound belongs to the piece it ends.
  CHECK(r.predict_us(0, 2, 24) == Approx(12.5 + 24.0 / 1000));
  CHECK(r.predict_us(0, 2, 1024) == Approx(12.5 + 1024.0 / 1000));
  CHECK(r.predict_us(0, 2, 1025) == Approx(31.25 + 1025.0 / 250));
  CHECK(r.predict_us(0, 2, 65536) == Approx(31.25 + 65536.0 / 250));
  CHECK(r.predict_us(0, 2, 65537) == Approx(9.5 + 65537.0 / 110));
  CHECK_FALSE(mcm::measured(r.predict_us(1, 2, 24)));
  // Without pieces (every table before them) nothing is written for them.
  CHECK(mcm::to_yaml(sample()).find("pieces") == std::string::npos);
}

TEST_CASE("a table written before the pieces of the fit still loads", "[topology][fit]") {
  // As mcm-probe wrote it before: one alpha and beta per path for every size.
  const mcm::Topology t = mcm::parse_topology(
      kMinimal +
          "fit:\n  alpha_us: [[~, 0.004], [12, ~]]\n  beta_bytes_per_us: [[~, 110], "
          "[100, ~]]\n",
      "topo.yaml");
  CHECK(t.pieces.empty());
  CHECK(t.predict_us(0, 1, 24) == Approx(0.004 + 24.0 / 110));
  CHECK(t.predict_us(1, 0, 1 << 20) == Approx(12 + 1048576.0 / 100));
}

TEST_CASE("errors in the pieces of the fit point at the line and column", "[topology][fit]") {
  const std::string fit =
      kMinimal + "fit:\n  alpha_us: [[~, 1], [1, ~]]\n  beta_bytes_per_us: [[~, 9], [9, ~]]\n";
  const std::string matrices =
      "    alpha_us: [[~, 1], [1, ~]]\n    beta_bytes_per_us: [[~, 9], [9, ~]]\n";
  CHECK(error_of(fit + "  pieces: 3\n") ==
        "topo.yaml:9:11: fit.pieces must be a list of {up_to_bytes, alpha_us, "
        "beta_bytes_per_us}");
  CHECK(error_of(fit + "  pieces:\n  - " + matrices.substr(4)) ==
        "topo.yaml:10:5: fit.pieces[0] needs the key 'up_to_bytes'");
  CHECK(error_of(fit + "  pieces:\n  - up_to_bytes: 0\n" + matrices) ==
        "topo.yaml:10:18: fit.pieces[0].up_to_bytes must be an integer between 1 and "
        "1099511627776");
  CHECK(error_of(fit + "  pieces:\n  - up_to_bytes: 1024\n" + matrices + "  - up_to_bytes: 512\n" +
                 matrices) ==
        "topo.yaml:13:18: fit.pieces[1].up_to_bytes must be above the previous piece's (1024)");
  CHECK(error_of(fit + "  pieces:\n  - up_to_bytes: 1024\n    alpha_us: [[~, 1]]\n" +
                 matrices.substr(matrices.find("    beta"))) ==
        "topo.yaml:11:15: fit.pieces[0].alpha_us has 1 rows, needs 2 rows of 2 values (one per "
        "host)");
  CHECK(error_of(fit + "  pieces:\n  - up_to_bytes: 1024\n" + matrices + "    colour: red\n")
            .rfind("topo.yaml:13:5: unknown key 'colour'", 0) == 0);
}

TEST_CASE("a table from other hosts is refused, a subset in any order accepted", "[topology]") {
  const mcm::Topology t = sample();
  CHECK_NOTHROW(mcm::check_hosts(t, {"vm3", "vm1"}, "topo.yaml"));
  const mcm::Resolver none = [](const std::string&) { return std::vector<std::string>{}; };
  CHECK(mcm::check_hosts(t, {"vm3", "vm1"}, "topo.yaml", none) == std::vector<int>{2, 0});
  CHECK_THROWS_WITH(mcm::check_hosts(t, {"vm1", "vm7"}, "topo.yaml", none),
                    "topo.yaml: measured on vm1, vm2, vm3, but this job runs on vm7, which the "
                    "table does not know (by name, address or short name; a table from another "
                    "allocation would route through the wrong hosts); run mcm-probe on this "
                    "job's hosts");
}
