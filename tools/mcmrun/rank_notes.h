// Who a world rank in Open MPI's messages is. mpirun reports failures by world rank
// ("mpirun noticed that process rank 9 with PID ... on node vm2 exited on signal 9",
// "MPI_ABORT was invoked on rank 10 in communicator MPI_COMM_WORLD"), but the daemons are
// world ranks the user never asked for: the last ones, one per host (job_builder.h).
// mcmrun reads mpirun's stderr line by line (launcher.h) and, after a line that names a
// daemon's world rank, adds one that says which VM's daemon it is. Pure: unit-tested in
// test/unit/mcmrun_rank_notes_test.cpp.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace mcmrun {

class RankNotes {
 public:
  /// `application_ranks`: the application's world size, nullopt when mpirun decides it;
  /// `daemon_hosts`: the daemons' hosts in order (one daemon per host; empty: this
  /// machine's one daemon).
  RankNotes(std::optional<long> application_ranks, std::vector<std::string> daemon_hosts);

  /// The note to print after `line` of mpirun's stderr, if it names a daemon's world rank
  /// not noted before: "mcmrun: world rank 9 is not an application rank: it is mcmd, the
  /// MCM daemon of vm2".
  std::optional<std::string> note(std::string_view line);

  /// Whether a line named a world rank that note() could not place (the application's
  /// size unknown): a failed job then ends with legend().
  bool needs_legend() const { return unplaced_; }
  /// Which world ranks are whose.
  std::string legend() const;

 private:
  std::optional<long> application_ranks_;
  std::vector<std::string> daemon_hosts_;
  std::set<long> noted_;
  bool unplaced_ = false;
};

}  // namespace mcmrun
