// One run as mcm-report sees it: what its record files say (mcm/records.h,
// docs/records.md), merged over the processes. Data only; run_reader.h fills it,
// findings.h judges it, the writers show it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace mcm::report {

/// One application rank, from its rank-N.jsonl.
struct RankInfo {
  bool present = false;  ///< its file was read
  int vm = -1;
  double wall_s = 0;         ///< MPI_Init to MPI_Finalize
  double outside_mpi_s = 0;  ///< computing (libmcm's estimate)...
  bool engine = false;       ///< ...known: the engine ran (modes relay, adaptive), waits too
  std::uint64_t detoured_messages = 0;
};

/// Traffic and waits between two ranks (from, to): what `from` sent to `to`, and how long
/// `to` waited for messages from `from`.
struct PairInfo {
  std::uint64_t messages = 0, bytes = 0;  ///< sender's count
  std::uint64_t received = 0;             ///< receiver's count
  std::uint64_t waited = 0;               ///< messages the receiver waited for
  double wait_s = 0, wait_max_s = 0;
  std::vector<std::uint64_t> wait_histogram;  ///< libmcm's buckets (docs/records.md)
};

/// A change of a VM pair's path (mcmd's path_change record).
struct PathChange {
  double t = 0;  ///< seconds since the run's start
  std::string from_vm, to_vm;
  std::string kind;              ///< switch, return
  std::string from_via, to_via;  ///< empty: direct
  std::string reason;
};

/// One second of one path (mcmd's path_sample record).
struct PathSample {
  double t = 0;     ///< seconds since the run's start
  std::string via;  ///< empty: direct
  int observations = 0;
  double latency_us = 0, base_us = 0;
  std::string zone;  ///< low, medium, high
};

/// The thesis's user mitigation figures of one VM path (mcmd's late record).
struct LatePath {
  std::string from_vm, to_vm, via;
  std::uint64_t messages = 0, bytes = 0, transit_over_wait = 0;
  double transit_p50_us = 0, wait_p50_us = 0;
};

struct Migration {
  double t = 0;
  std::string vm, domain, to_host;
};

/// What went wrong reading a file: "<file>:<line>: <what>", kept and shown.
struct ReadProblem {
  std::string where, what;
};

struct Run {
  std::string directory;
  std::string id;    ///< the run id the headers name
  std::string mode;  ///< relay, adaptive, ...
  double t0 = 0;     ///< the earliest header time (wall seconds); times below are relative
  int rank_count = 0;
  std::vector<RankInfo> ranks;
  std::vector<std::string> vm_names;  ///< by VM index (the daemons' names)
  std::string paths_file;  ///< the probe table the daemons used (mcmrun --paths), or empty
  /// pairs[from][to], rank_count x rank_count.
  std::vector<std::vector<PairInfo>> pairs;
  std::vector<PathChange> changes;
  /// samples[{from VM, to VM}], in time order.
  std::map<std::pair<std::string, std::string>, std::vector<PathSample>> samples;
  std::vector<LatePath> late;
  std::vector<Migration> migrations;
  /// Per VM name: the daemon's summary counters (probes, switches, ...).
  std::map<std::string, std::map<std::string, double>> daemon_counters;
  std::vector<ReadProblem> problems;
  int files_read = 0;
  int files_cut_short = 0;  ///< without their end record

  /// The application's time: the longest rank's MPI_Init to MPI_Finalize.
  double wall_s() const;
  std::string vm_name(int vm) const;
  const PairInfo& pair(int from, int to) const {
    return pairs[static_cast<size_t>(from)][static_cast<size_t>(to)];
  }
};

}  // namespace mcm::report
