// mcmrun --rankfile FILE: the application's ranks placed on the hosts an Open MPI
// rankfile names ("rank R=HOST slot=SPEC" lines; # comments), e.g. the placement
// mcm-report --rankfile wrote.
//
// How: mcmrun writes the hosts of ranks 0..N-1, in rank order, then every host of the
// allocation once (the daemons' hosts must be in the job's allocation), to a sequential
// hostfile and maps the application with --map-by seq; the daemons keep their --host.
// Open MPI's own rankfile mapper would also need a line per daemon, and binds each rank
// to its slot's cores, which daemons sharing the VM's cores must not be: the slot
// specifications are read and checked, not used for binding.
#pragma once

#include <string>
#include <vector>

#include "command_line.h"
#include "mcm/host_match.h"
#include "mcm/hostfile.h"

namespace mcmrun {

/// The host of each rank (index: rank) from the rankfile text `text` (named `path` in
/// messages), for `ranks` application ranks on the allocation's `hosts`. Throws
/// UsageError "PATH:LINE: ..." for a malformed line, a rank out of range or given twice,
/// a host not in the allocation; and "PATH: rank R has no line" for a missing rank.
/// A rankfile host matches an allocation host by name, address or short name
/// (mcm/host_match.h); the allocation's spelling is returned.
std::vector<std::string> read_rankfile(const std::string& path, const std::string& text, long ranks,
                                       const mcm::HostList& hosts,
                                       const mcm::Resolver& resolve = mcm::resolve_addresses);

/// The sequential hostfile: `rank_hosts`, then every allocation host once.
std::string seq_hostfile_text(const std::vector<std::string>& rank_hosts,
                              const mcm::HostList& hosts);

}  // namespace mcmrun
