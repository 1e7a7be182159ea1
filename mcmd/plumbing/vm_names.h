// The job's VM names, as the daemons agree on them at start-up.
#pragma once

#include <string>
#include <vector>

#include "mcm/bootstrap.h"

namespace mcm::daemon {

/// Every VM's host name, by VM index: each daemon's `given` name (mcmd --vm-name: mcmrun
/// passes the path table's or the hostfile's spelling, so that a table probed with a
/// hostfile of names, FQDNs or addresses matches), else its MPI_Get_processor_name().
/// Collective over the daemon communicator.
std::vector<std::string> gather_vm_names(const Layout& layout, const std::string& given);

}  // namespace mcm::daemon
