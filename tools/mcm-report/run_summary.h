// The figures of one run that every view shows (terminal, JSON, HTML, comparison),
// computed once from its Run.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "findings.h"
#include "probe_table.h"
#include "run_model.h"

namespace mcm::report {

struct RunSummary {
  double wall_s = 0;
  int ranks = 0, vms = 0;
  bool engine = false;  ///< some rank ran the engine (relay, adaptive): waits are known
  std::uint64_t messages = 0, bytes = 0, inter_vm_bytes = 0;
  std::uint64_t received = 0, waited = 0;  ///< messages, and those the receiver waited for
  double wait_s = 0;                       ///< all receivers' waits together
  int worst_from = -1, worst_to = -1;      ///< the pair with the longest waits
  double worst_wait_s = 0;
  int switches = 0, returns = 0;
  std::uint64_t detoured_messages = 0;
  std::vector<Finding> findings;
  std::optional<ProbeTable> table;  ///< the probe's table, when there is one...
  std::string table_note;           ///< ...or why not
};

/// `paths`: the probe table to use (empty: the one the run's daemons used, if any).
RunSummary summarize(const Run& run, const FindingRules& rules = {}, const std::string& paths = "");

}  // namespace mcm::report
