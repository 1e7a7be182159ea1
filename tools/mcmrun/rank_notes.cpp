#include "rank_notes.h"

#include <cctype>

namespace mcmrun {

RankNotes::RankNotes(std::optional<long> application_ranks, std::vector<std::string> daemon_hosts)
    : application_ranks_(application_ranks), daemon_hosts_(std::move(daemon_hosts)) {
  if (daemon_hosts_.empty()) daemon_hosts_.push_back("this machine");
}

namespace {

/// The world ranks `line` names the way Open MPI 4.1's messages do: "process rank N",
/// "invoked on rank N", "Process name: [[J,S],N]".
std::vector<long> named_ranks(std::string_view line) {
  std::vector<long> ranks;
  const auto number_at = [&](std::size_t at) {
    std::size_t end = at;
    while (end < line.size() && end - at < 9 && std::isdigit(static_cast<unsigned char>(line[end])))
      ++end;
    if (end > at) ranks.push_back(std::stol(std::string(line.substr(at, end - at))));
  };
  for (std::string_view marker : {"process rank ", "invoked on rank "})
    for (std::size_t at = line.find(marker); at != std::string_view::npos;
         at = line.find(marker, at + 1))
      number_at(at + marker.size());
  constexpr std::string_view kName = "Process name: [[";
  for (std::size_t at = line.find(kName); at != std::string_view::npos;
       at = line.find(kName, at + 1)) {
    const std::size_t close = line.find("],", at);
    if (close != std::string_view::npos) number_at(close + 2);
  }
  return ranks;
}

}  // namespace

std::optional<std::string> RankNotes::note(std::string_view line) {
  std::optional<std::string> out;
  for (const long rank : named_ranks(line)) {
    if (!application_ranks_) {
      unplaced_ = true;
      continue;
    }
    const long daemon = rank - *application_ranks_;
    if (daemon < 0 || daemon >= static_cast<long>(daemon_hosts_.size())) continue;
    if (!noted_.insert(rank).second) continue;
    const std::string text = "mcmrun: world rank " + std::to_string(rank) +
                             " is not an application rank: it is mcmd, the MCM daemon of " +
                             daemon_hosts_[static_cast<std::size_t>(daemon)];
    out = out ? *out + "\n" + text : text;
  }
  return out;
}

std::string RankNotes::legend() const {
  std::string hosts;
  for (const std::string& h : daemon_hosts_) hosts += (hosts.empty() ? "" : ", ") + h;
  if (application_ranks_)
    return "mcmrun: world ranks 0-" + std::to_string(*application_ranks_ - 1) +
           " are the application's; world ranks " + std::to_string(*application_ranks_) + "-" +
           std::to_string(*application_ranks_ + static_cast<long>(daemon_hosts_.size()) - 1) +
           " are MCM's daemons (mcmd) of " + hosts;
  return "mcmrun: the last " + std::to_string(daemon_hosts_.size()) +
         " world ranks are MCM's daemons (mcmd) of " + hosts + ", in that order";
}

}  // namespace mcmrun
