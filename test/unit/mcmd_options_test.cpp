// mcmd's command line (mcmd/plumbing/daemon_options.h): both option forms, repeated
// options, integers read whole, and messages that name the option and the value.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "plumbing/daemon_options.h"

namespace {

/// parse_options() of `mcmd args...`.
mcm::daemon::DaemonOptions parse(std::vector<std::string> args) {
  args.insert(args.begin(), "mcmd");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return mcm::daemon::parse_options(static_cast<int>(args.size()), argv.data());
}

}  // namespace

TEST_CASE("mcmd options: --opt value and --opt=value, the last one wins, routes add up", "[mcmd]") {
  const auto o = parse({"--mode", "record", "--mode=relay", "--log-dir=/tmp/l", "--vm-name", "vm2",
                        "--route", "vm1:vm2:vm3", "--route=vm2:vm1:vm3", "--chunk-bytes=8192",
                        "--buffer-bytes", "2097152"});
  CHECK(o.mode == mcm::Mode::relay);
  CHECK(o.log_dir == "/tmp/l");
  CHECK(o.vm_name == "vm2");
  REQUIRE(o.routes.size() == 2);
  CHECK(o.routes[0].via == "vm3");
  CHECK(o.routes[1].from == "vm2");
  CHECK(o.relay.chunk_bytes == 8192);
  CHECK(o.relay.buffer_bytes == 2097152);
  CHECK_FALSE(o.exit_now);
  CHECK(parse({}).mode == mcm::Mode::off);
}

TEST_CASE("mcmd options: integers are read whole and in range", "[mcmd]") {
  CHECK_THROWS_WITH(parse({"--buffer-bytes", "12abc"}),
                    "--buffer-bytes '12abc': expected an integer of at least 1048576");
  CHECK_THROWS_WITH(parse({"--chunk-bytes= 8192"}),
                    "--chunk-bytes ' 8192': expected an integer between 4096 and 67108864");
  CHECK_THROWS_WITH(parse({"--chunk-bytes", "0x2000"}),
                    Catch::StartsWith("--chunk-bytes '0x2000'"));
  CHECK_THROWS_WITH(parse({"--buffer-bytes", "99999999999999999999"}),
                    Catch::StartsWith("--buffer-bytes '99999999999999999999'"));
  CHECK_THROWS_WITH(parse({"--chunk-bytes", "100"}), Catch::StartsWith("--chunk-bytes '100'"));
}

TEST_CASE("mcmd options: mistakes name the option", "[mcmd]") {
  CHECK_THROWS_WITH(parse({"--mode", "fast"}),
                    "unknown --mode 'fast' (expected off, record, relay or adaptive)");
  CHECK_THROWS_WITH(parse({"--mode", "off", "--bogus", "1"}),
                    Catch::StartsWith("unknown option '--bogus'\nusage: mcmd"));
  CHECK_THROWS_WITH(parse({"stray"}), Catch::StartsWith("unknown option 'stray'\n"));
  CHECK_THROWS_WITH(parse({"--mode", "off", "--log-dir"}), "--log-dir needs a value");
  CHECK_THROWS_WITH(parse({"--log-dir="}), "--log-dir needs a value");
  CHECK_THROWS_WITH(parse({"--vm-name", ""}), "--vm-name needs a non-empty host name");
  // An option takes the next word as its value, whatever it looks like.
  CHECK(parse({"--log-dir", "--mode"}).log_dir == "--mode");
}
