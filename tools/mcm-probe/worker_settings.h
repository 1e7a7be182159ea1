// What the front end tells the probe's MPI ranks (`mcm-probe --worker ...`): the front end
// writes these settings as arguments and every rank reads them back.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace probe {

enum class Progress { none, lines, bar };

struct WorkerSettings {
  std::vector<std::string> hosts;  ///< rank i runs on hosts[i]
  std::vector<long long> sizes;    ///< ascending
  long long reference_size = 0;    ///< in sizes; the sensibility phase measures it
  double budget_seconds = 0;       ///< for the measurements, from the ranks' start
  bool quick = false;              ///< latency matrix only
  double factor = 2.0;             ///< sensibility threshold, times the base latency
  double flood_rate = 0;           ///< bytes per second, 0 = unlimited
  Progress progress = Progress::lines;
};

/// The arguments after `--worker`.
std::vector<std::string> to_args(const WorkerSettings& settings);
/// Reads them back; nullopt and `error` set for anything it does not understand.
std::optional<WorkerSettings> from_args(const std::vector<std::string>& args, std::string& error);

}  // namespace probe
