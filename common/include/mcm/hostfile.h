// The hosts of an Open MPI allocation: hostfiles and --host/-H lists, read with the
// semantics of Open MPI 4.1's mpirun so that MCM places its daemons where mpirun will
// place the application and counts slots the way mpirun does.
//
// Hostfile lines are `[user@]host [slots=N] [max_slots=M] [other=value ...]`, with
// comments from `#` or `//` to the end of the line. Slot counting follows Open MPI:
//   - a host listed once without slots= gets "as many slots as cores" (unknown here: -1);
//   - every further bare line for the same host adds one slot (and makes the count known);
//   - `slots=N` (or count=, cpu=) gives the count; it is an error on a host that already
//     has one (Open MPI refuses mixing "one line per slot" with "slots=N");
//   - `max_slots=M` (and its aliases) caps the host and is its slot count when no slots=
//     is given; M below the slot count is an error;
//   - `^host` excludes a host; `+n0`-style relative names are rejected.
// A --host list is `a,b,a` (one slot per occurrence) or `a:2,b:4`; `a:*` means "as many
// slots as cores" (unknown).
#pragma once

#include <istream>
#include <string>
#include <string_view>
#include <vector>

namespace mcm {

/// One host of an allocation.
struct Host {
  std::string name;   ///< as written, without any `user@`
  int slots = -1;     ///< -1 when not given (Open MPI then uses the host's core count)
  int max_slots = 0;  ///< 0 when not given (no cap)

  bool operator==(const Host& o) const {
    return name == o.name && slots == o.slots && max_slots == o.max_slots;
  }
};

/// Hosts in order of first appearance, each once.
struct HostList {
  std::vector<Host> hosts;

  /// Sum of the slots of all hosts, or -1 when any host's count is unknown or the list is
  /// empty.
  int total_slots() const;
  /// The host named `name`, or nullptr.
  const Host* find(std::string_view name) const;
};

/// Parses a hostfile from `in`; `file_name` is only used in messages. Throws ConfigError
/// "FILE:LINE: message" on the first malformed line.
HostList parse_hostfile(std::istream& in, const std::string& file_name);

/// Reads and parses the hostfile at `path`. Throws ConfigError, including
/// "cannot read hostfile 'PATH': <strerror>" when it cannot be opened.
HostList read_hostfile(const std::string& path);

/// Parses a --host/-H value ("a,b,a", "a:2,b:4", "a:*") and merges it into `into`:
/// new hosts are appended, known ones get the extra slots. `option` names the option in
/// messages. Throws ConfigError "--host 'a:x': bad slots value 'x'" and the like.
void add_host_list(std::string_view spec, HostList& into, std::string_view option = "--host");

}  // namespace mcm
