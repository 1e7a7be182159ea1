// The one seam between lmcd and the hypervisor: what lmcd asks of its host's libvirt.
// LibvirtHypervisor (libvirt_hypervisor.h) is the real one; the unit tests of lmcd's
// program use a fake. Every call blocks; lmcd makes them off its event loop.
#pragma once

#include <string>
#include <vector>

namespace mcm::lmcd {

struct MigrationRequest {
  std::string domain;                 ///< the libvirt domain to move (name or UUID)
  std::string destination_uri;        ///< the destination host's libvirt, e.g. qemu+tcp://h3/system
  unsigned long bandwidth_mib_s = 0;  ///< cap on the migration stream (0: none)
  double timeout_s = 120;             ///< not done by then: the migration is aborted (cleanly)
};

struct MigrationResult {
  enum class Outcome { moved, refused, aborted, failed };
  Outcome outcome = Outcome::failed;
  double seconds = 0;  ///< from the request to the end, either way
  std::string error;   ///< the hypervisor's message when not moved
};

const char* describe(MigrationResult::Outcome outcome);

class Hypervisor {
 public:
  virtual ~Hypervisor() = default;
  /// The names of the domains running on this host. Throws std::runtime_error with the
  /// hypervisor's message when it cannot tell.
  virtual std::vector<std::string> running_domains() = 0;
  /// Live-migrates a domain of this host, peer to peer. `refused` when the destination
  /// would not take it (its hook or its checks), `aborted` when it took longer than the
  /// timeout (the domain keeps running here), `failed` otherwise.
  virtual MigrationResult migrate(const MigrationRequest& request) = 0;
};

}  // namespace mcm::lmcd
