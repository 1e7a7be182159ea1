// Which host of a list measured earlier (mcm-probe's table) each host of a job is, when the
// two were written differently: host names, fully qualified names or IP addresses of the
// same machines (a table probed with a hostfile of names, a job launched with one of
// addresses, or the other way round).
//
// Rules, in order, for each job host; the first rule that finds exactly one table host
// decides:
//  1. the same spelling, ignoring case (DNS names are case-insensitive);
//  2. the same machine by address: the address sets of both spellings (Resolver, asked at
//     most once per spelling) share an address;
//  3. the same short name: the first DNS label of both, neither being an IP address
//     ("node1" and "node1.cluster.example").
// A job host that no rule matches, or that a rule matches to two table hosts, is an error
// that names it. Two job hosts may not match the same table host.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace mcm {

/// The addresses of `host` as text ("10.0.0.1", "fd00::1"): getaddrinfo() for names, the
/// address itself for an address. Empty when the host is unknown.
using Resolver = std::function<std::vector<std::string>(const std::string& host)>;

/// getaddrinfo() with AF_UNSPEC: every IPv4 and IPv6 address of `host`, sorted, unique.
std::vector<std::string> resolve_addresses(const std::string& host);

/// For each job host, the index of the same host in `table_hosts`, by the rules above.
/// Throws ConfigError "FILE: ..." naming the job host that cannot be matched, or that is
/// ambiguous, and listing the table's hosts.
std::vector<int> match_hosts(const std::vector<std::string>& table_hosts,
                             const std::vector<std::string>& job_hosts,
                             const std::string& file_name,
                             const Resolver& resolve = resolve_addresses);

}  // namespace mcm
