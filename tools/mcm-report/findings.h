// What the run's waits say about the run, for its user: the thesis's user mitigation
// (seed 002, 3.4.4) made specific. A finding names the ranks and VMs involved, says
// which kind of problem it is, gives the figures, and one sentence of advice:
//
//  - network: a receiver waited for messages that crossed a VM path the runtime found
//    congested for a good part of the run (its zones medium or high), or congested enough
//    to switch it to a detour;
//  - late sender: a rank computed clearly longer than the others (libmcm's time outside
//    MPI), and its receivers waited for its messages: the application's load imbalance;
//  - mapping: the heaviest communicating pairs are split across VMs while a placement
//    with the same ranks per VM keeps much more of the traffic inside VMs (placement.h).
//
// Findings are per VM pair (network) or per rank (late sender), never per message, and
// come sorted by the time they explain. Pure logic over a Run.
#pragma once

#include <string>
#include <vector>

#include "probe_table.h"
#include "run_model.h"

namespace mcm::report {

struct FindingRules {
  /// A pair's waits matter from this share of the run's time...
  double min_wait_share = 0.02;
  /// ...and from this many seconds.
  double min_wait_s = 0.05;
  /// A path the runtime switched to a detour counts as congested with one second in zone
  /// medium or high; one it did not switch, with this many seconds and this share of the
  /// run's time. A few seconds of medium zone on busy cores (8 ranks and 4 daemons on 2
  /// cores: 1-4 s of a 32 s CG run on every path; one sampled second of a 3 s run whose
  /// receiver waits for a late sender) are not the network's doing.
  double min_congested_s = 2.0;
  double min_congested_share = 0.2;
  /// A rank is late when it computed this many times the median rank (ranks sharing cores
  /// with a daemon that forwards a detour compute up to 1.3-1.4x the median: CG class W,
  /// 4 ranks and 4 daemons on 2 cores)...
  double imbalance_factor = 1.5;
  /// ...and at least this share of the run's time more.
  double min_imbalance_share = 0.05;
  /// Mapping: a better placement must cut the traffic between VMs by this share...
  double min_mapping_gain = 0.25;
  /// ...of traffic between VMs that is at least this share of all traffic.
  double min_inter_vm_share = 0.10;
};

struct Finding {
  enum class Kind { network, late_sender, mapping };
  Kind kind = Kind::network;
  std::vector<int> ranks;        ///< the ranks it is about (first: the cause, if one)
  std::vector<std::string> vms;  ///< the VMs it is about
  std::string title;             ///< one line: what
  std::string figures;           ///< the evidence
  std::string advice;            ///< one sentence: what to do
  double explained_s = 0;        ///< the wait time it accounts for (sorting)
};

const char* to_string(Finding::Kind kind);
/// "12 kB", "3.4 MB", "1.2 GB".
std::string megabytes(double bytes);

/// The run's findings, most time explained first. `table` (may be null): the probe's,
/// whose per-byte costs weigh the placement (placement.h).
std::vector<Finding> find_problems(const Run& run, const FindingRules& rules = {},
                                   const ProbeTable* table = nullptr);

/// The placement problem of the run's ranks: their traffic, the run's ranks per VM, and
/// the table's per-byte costs (null: 1 between VMs); `current` gets the run's placement.
/// False when a rank's records are missing (its VM is unknown).
struct PlacementProblem;
bool placement_problem(const Run& run, const ProbeTable* table, PlacementProblem* problem,
                       std::vector<int>* current);

/// Seconds the path from VM `from` to VM `to` spent in zone medium or high, by the
/// source daemon's samples of its direct path.
double congested_seconds(const Run& run, const std::string& from, const std::string& to);

}  // namespace mcm::report
