// hypervisor_check: lmcd's libvirt seam (lmcd/hypervisor/libvirt_hypervisor.h) from the
// command line, for test/system/lmcd_hypervisor_test.sh on the testbed's hosts.
//
// Usage: hypervisor_check URI list
//        hypervisor_check URI migrate DOMAIN DESTINATION_URI [TIMEOUT_S [BANDWIDTH_MIB_S]]
// list prints the running domains, one a line; migrate prints
//   "<outcome> <seconds>[: <error>]"   (outcome: moved, refused, aborted, failed)
// and exits 0 when moved, 3 refused, 4 aborted, 5 failed; 1 when it cannot connect, 2 on
// a usage error.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "hypervisor/libvirt_hypervisor.h"

using namespace mcm::lmcd;

int main(int argc, char** argv) {
  if (argc < 3 || (std::string(argv[2]) == "migrate" && argc < 5)) {
    std::fprintf(
        stderr,
        "usage: hypervisor_check URI list | URI migrate DOMAIN DEST_URI [TIMEOUT_S [BANDWIDTH]]\n");
    return 2;
  }
  try {
    LibvirtHypervisor hv(argv[1]);
    std::string what = argv[2];
    if (what == "list") {
      for (const auto& d : hv.running_domains()) std::printf("%s\n", d.c_str());
      return 0;
    }
    if (what != "migrate") {
      std::fprintf(stderr, "hypervisor_check: unknown command '%s'\n", what.c_str());
      return 2;
    }
    MigrationRequest r;
    r.domain = argv[3];
    r.destination_uri = argv[4];
    if (argc > 5) r.timeout_s = std::atof(argv[5]);
    if (argc > 6) r.bandwidth_mib_s = std::strtoul(argv[6], nullptr, 10);
    MigrationResult m = hv.migrate(r);
    std::printf("%s %.2f%s%s\n", describe(m.outcome), m.seconds, m.error.empty() ? "" : ": ",
                m.error.c_str());
    switch (m.outcome) {
      case MigrationResult::Outcome::moved:
        return 0;
      case MigrationResult::Outcome::refused:
        return 3;
      case MigrationResult::Outcome::aborted:
        return 4;
      case MigrationResult::Outcome::failed:
        return 5;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hypervisor_check: %s\n", e.what());
    return 1;
  }
  return 5;
}
