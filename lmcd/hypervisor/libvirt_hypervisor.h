// The Hypervisor of lmcd through libvirt's C API: one connection to the host's libvirtd
// (its URI from lmcd's config; on the testbed qemu+tcp://<host address>:16509/system).
// Migrations are virDomainMigrateToURI3 with VIR_MIGRATE_LIVE | VIR_MIGRATE_PEER2PEER and
// an optional bandwidth cap; a watchdog calls virDomainAbortJob when one outlasts its
// timeout, so that it ends with the guest still running on the source.
#pragma once

#include <memory>
#include <string>

#include "hypervisor/hypervisor.h"

namespace mcm::lmcd {

class LibvirtHypervisor : public Hypervisor {
 public:
  /// Connects to `uri`; throws std::runtime_error with libvirt's message when it cannot.
  explicit LibvirtHypervisor(const std::string& uri);
  ~LibvirtHypervisor() override;
  LibvirtHypervisor(const LibvirtHypervisor&) = delete;
  LibvirtHypervisor& operator=(const LibvirtHypervisor&) = delete;

  std::vector<std::string> running_domains() override;
  MigrationResult migrate(const MigrationRequest& request) override;

 private:
  struct Connection;
  std::unique_ptr<Connection> connection_;
  std::string uri_;
};

}  // namespace mcm::lmcd
