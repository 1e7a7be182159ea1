#include "mcm/host_match.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <cctype>
#include <map>

#include "mcm/error.h"
#include "text.h"

namespace mcm {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

bool is_address(const std::string& host) {
  unsigned char buffer[sizeof(in6_addr)];
  return inet_pton(AF_INET, host.c_str(), buffer) == 1 ||
         inet_pton(AF_INET6, host.c_str(), buffer) == 1;
}

/// "node1.cluster.example" -> "node1"; empty for an IP address (its first "label" would be
/// a number shared by unrelated hosts).
std::string short_name(const std::string& host) {
  if (is_address(host)) return {};
  return lower(host.substr(0, host.find('.')));
}

/// The table hosts for which `same(table index)` holds.
template <class Same>
std::vector<int> candidates(const std::vector<std::string>& table_hosts, Same same) {
  std::vector<int> found;
  for (int t = 0; t < static_cast<int>(table_hosts.size()); ++t)
    if (same(t)) found.push_back(t);
  return found;
}

}  // namespace

std::vector<std::string> resolve_addresses(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &list) != 0) return {};
  std::vector<std::string> out;
  for (const addrinfo* a = list; a != nullptr; a = a->ai_next) {
    char text[INET6_ADDRSTRLEN] = {};
    const void* raw =
        a->ai_family == AF_INET
            ? static_cast<const void*>(&reinterpret_cast<sockaddr_in*>(a->ai_addr)->sin_addr)
            : static_cast<const void*>(&reinterpret_cast<sockaddr_in6*>(a->ai_addr)->sin6_addr);
    if (inet_ntop(a->ai_family, raw, text, sizeof text) != nullptr) out.emplace_back(text);
  }
  freeaddrinfo(list);
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<int> match_hosts(const std::vector<std::string>& table_hosts,
                             const std::vector<std::string>& job_hosts,
                             const std::string& file_name, const Resolver& resolve) {
  std::map<std::string, std::vector<std::string>> addresses;  // spelling -> its addresses
  auto addresses_of = [&](const std::string& host) -> const std::vector<std::string>& {
    auto it = addresses.find(host);
    if (it == addresses.end()) it = addresses.emplace(host, resolve(host)).first;
    return it->second;
  };
  auto share_address = [&](const std::string& a, const std::string& b) {
    const std::vector<std::string>& x = addresses_of(a);
    const std::vector<std::string>& y = addresses_of(b);
    return std::any_of(x.begin(), x.end(), [&](const std::string& s) {
      return std::find(y.begin(), y.end(), s) != y.end();
    });
  };
  auto where = [&](const std::string& host) {
    return file_name + ": measured on " + join(table_hosts) + ", but this job runs on " + host;
  };

  std::vector<int> matched;
  std::vector<std::string> unknown;
  for (const std::string& host : job_hosts) {
    std::vector<int> found = candidates(table_hosts, [&](int t) {
      return lower(table_hosts[static_cast<size_t>(t)]) == lower(host);
    });
    if (found.empty())
      found = candidates(table_hosts, [&](int t) {
        return share_address(table_hosts[static_cast<size_t>(t)], host);
      });
    if (found.empty() && !short_name(host).empty())
      found = candidates(table_hosts, [&](int t) {
        return short_name(table_hosts[static_cast<size_t>(t)]) == short_name(host);
      });
    if (found.empty()) {
      unknown.push_back(host);
      matched.push_back(-1);
      continue;
    }
    if (found.size() > 1) {
      std::vector<std::string> names;
      for (int t : found) names.push_back(table_hosts[static_cast<size_t>(t)]);
      throw ConfigError(where(host) + ", which is the same host as " + join(names) +
                        " of the table (same address or short name): cannot tell which; " +
                        "run mcm-probe with the job's hostfile");
    }
    const auto twice = std::find(matched.begin(), matched.end(), found.front());
    if (twice != matched.end())
      throw ConfigError(
          where(host) + " and " + job_hosts[static_cast<size_t>(twice - matched.begin())] +
          ", which are both the table's " + table_hosts[static_cast<size_t>(found.front())] +
          "; run mcm-probe with the job's hostfile");
    matched.push_back(found.front());
  }
  if (!unknown.empty())
    throw ConfigError(where(join(unknown)) +
                      ", which the table does not know (by name, address or " +
                      "short name; a table from another allocation would route through the " +
                      "wrong hosts); run mcm-probe on this job's hosts");
  return matched;
}

}  // namespace mcm
