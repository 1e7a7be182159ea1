#include "rankfile.h"

#include <map>
#include <regex>
#include <sstream>

#include "mcm/error.h"

namespace mcmrun {

std::vector<std::string> read_rankfile(const std::string& path, const std::string& text, long ranks,
                                       const mcm::HostList& hosts, const mcm::Resolver& resolve) {
  if (hosts.hosts.empty())
    throw UsageError("--rankfile " + path +
                     ": the job's hosts are needed to place ranks on them: give --hostfile or "
                     "--host");
  std::vector<std::string> names;
  for (const mcm::Host& h : hosts.hosts) names.push_back(h.name);
  // "rank 3=node2 slot=0", "rank 3=node2 slot=1:0-2": Open MPI's syntax.
  static const std::regex line_re(R"(^\s*rank\s+(\d+)\s*=\s*(\S+)\s+slot\s*=\s*(\S+)\s*$)");
  std::vector<std::string> of_rank(static_cast<size_t>(ranks));
  std::vector<int> line_of_rank(static_cast<size_t>(ranks), 0);
  std::map<std::string, std::string> spelled;  // rankfile host -> allocation host
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const std::string where = path + ":" + std::to_string(number) + ": ";
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::smatch m;
    if (!std::regex_match(line, m, line_re))
      throw UsageError(where + "expected 'rank R=HOST slot=SLOTS', got '" + line + "'");
    const long rank = std::stol(m[1].str());
    if (rank >= ranks)
      throw UsageError(where + "rank " + m[1].str() + " is beyond the job's " +
                       std::to_string(ranks) + " application ranks (-np)");
    if (line_of_rank[static_cast<size_t>(rank)] > 0)
      throw UsageError(where + "rank " + m[1].str() + " is placed twice (also on line " +
                       std::to_string(line_of_rank[static_cast<size_t>(rank)]) + ")");
    const std::string host = m[2].str();
    auto it = spelled.find(host);
    if (it == spelled.end()) {
      try {
        const int k = mcm::match_hosts(names, {host}, path, resolve).front();
        it = spelled.emplace(host, names[static_cast<size_t>(k)]).first;
      } catch (const mcm::ConfigError&) {
        std::string list;
        for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
        throw UsageError(where + "host '" + host + "' is not one of the job's hosts (" + list +
                         ")");
      }
    }
    of_rank[static_cast<size_t>(rank)] = it->second;
    line_of_rank[static_cast<size_t>(rank)] = number;
  }
  for (long r = 0; r < ranks; ++r)
    if (line_of_rank[static_cast<size_t>(r)] == 0)
      throw UsageError(path + ": rank " + std::to_string(r) + " has no line (the job has " +
                       std::to_string(ranks) + " application ranks)");
  return of_rank;
}

std::string seq_hostfile_text(const std::vector<std::string>& rank_hosts,
                              const mcm::HostList& hosts) {
  std::string out;
  for (const std::string& h : rank_hosts) out += h + "\n";
  for (const mcm::Host& h : hosts.hosts) out += h.name + "\n";
  return out;
}

}  // namespace mcmrun
