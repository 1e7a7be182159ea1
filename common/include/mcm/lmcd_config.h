// lmcd's configuration file (`lmcd --config FILE`, docs/lmcd.md), one per hypervisor host.
// A YAML map; anything not in the schema is an error that names the file, line and column,
// so a typo never falls back to a default:
//
//   host: h2                              # this host's name, as its peers know it (required)
//   listen: 10.77.0.102:7800              # ADDRESS:PORT for the daemons and peers (required)
//   libvirt_uri: qemu:///system           # this host's libvirt (default qemu:///system)
//   operator_key_file: /etc/mcm/lmcd/operator.key   # the lmcds' shared key (required)
//   capacity: 0                           # guests this host takes (0: unlimited)
//   peers:                                # the other hosts' lmcds
//     - {host: h3, address: 10.77.0.103:7800, libvirt_uri: qemu+tcp://10.77.0.103/system}
//   jobs:                                 # who may report, one entry per job
//     - id: job-a1                        # the key id the job's daemons seal with
//       key_file: /etc/mcm/lmcd/job-a1.key
//       domains: {vm1: 10.77.0.1, vm2: 10.77.0.2}   # its VMs and their addresses
//   detection: {source_fraction: 0.5, min_excess_us: 500, guest_fraction: 0.5, min_guests: 1,
//               sustain_s: 3, report_ttl_s: 2, source_hold_s: 2.5,
//               link_check: true}          # false when the lmcds talk over another network
//                                          # than their guests (lmcd/logic/link_vantage.h)
//   decision: {cooldown_s: 120, status_ttl_s: 10}
//   migration: {bandwidth_mib_s: 0, timeout_s: 120, dry_run: false}
//   report_interval_s: 1                  # how often the daemons report (told at hello)
//   status_interval_s: 1                  # how often this lmcd tells its peers its state
//
// Key files hold 64 hexadecimal digits (mcm/control/seal.h parse_key); they are read when
// the file is loaded and a bad or unreadable one is an error naming it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "mcm/control/seal.h"

namespace mcm {

struct LmcdPeer {
  std::string host;
  std::string address;      ///< ADDRESS:PORT of its lmcd
  std::string libvirt_uri;  ///< where migrations to it go
};

struct LmcdJob {
  std::string id;
  control::Key key{};
  std::map<std::string, std::string> domains;  ///< domain -> the VM's address
};

struct LmcdConfig {
  std::string host;
  std::string listen_address;
  int listen_port = 0;
  std::string libvirt_uri = "qemu:///system";
  control::Key operator_key{};
  unsigned capacity = 0;
  std::vector<LmcdPeer> peers;
  std::vector<LmcdJob> jobs;
  double source_fraction = 0.5, min_excess_us = 500, guest_fraction = 0.5, sustain_s = 3,
         report_ttl_s = 2, source_hold_s = 2.5;
  int min_guests = 1;
  bool link_check = true;
  double cooldown_s = 120, status_ttl_s = 10;
  unsigned long bandwidth_mib_s = 0;
  double timeout_s = 120;
  bool dry_run = false;
  double report_interval_s = 1, status_interval_s = 1;
};

/// Parses `text` (the content of `file_name`); relative key files are read relative to
/// `base_dir`. Throws ConfigError "FILE:LINE:COLUMN: message".
LmcdConfig parse_lmcd_config(const std::string& text, const std::string& file_name,
                             const std::string& base_dir = ".");
/// Reads and parses the file at `path`. Throws ConfigError.
LmcdConfig load_lmcd_config(const std::string& path);

}  // namespace mcm
