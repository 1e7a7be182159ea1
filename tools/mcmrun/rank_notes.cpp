#include "rank_notes.h"

#include <regex>

namespace mcmrun {

RankNotes::RankNotes(std::optional<long> application_ranks, std::vector<std::string> daemon_hosts)
    : application_ranks_(application_ranks), daemon_hosts_(std::move(daemon_hosts)) {
  if (daemon_hosts_.empty()) daemon_hosts_.push_back("this machine");
}

std::optional<std::string> RankNotes::note(std::string_view line) {
  // Open MPI 4.1's ways of naming a process of the job in its messages.
  static const std::regex kNamed(
      R"(process rank (\d+)|invoked on rank (\d+)|Process name: \[\[\d+,\d+\],(\d+)\])");
  std::optional<std::string> out;
  const std::string text(line);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kNamed);
       it != std::sregex_iterator(); ++it) {
    std::string digits;
    for (std::size_t group = 1; group < it->size(); ++group)
      if ((*it)[group].matched) digits = (*it)[group].str();
    if (digits.size() > 9) continue;
    if (!application_ranks_) {
      unplaced_ = true;
      continue;
    }
    const long rank = std::stol(digits);
    const long daemon = rank - *application_ranks_;
    if (daemon < 0 || daemon >= static_cast<long>(daemon_hosts_.size())) continue;
    if (!noted_.insert(rank).second) continue;
    std::string text_note = "mcmrun: world rank " + std::to_string(rank) +
                            " is not an application rank: it is mcmd, the MCM daemon of " +
                            daemon_hosts_[static_cast<std::size_t>(daemon)];
    out = out ? *out + "\n" + text_note : text_note;
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
