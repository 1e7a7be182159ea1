// The virtual cluster as mcm-probe measured it (`topo.yaml`), read by `mcmrun --paths`
// and the daemons. One YAML map:
//
//   format: mcm-topology/1
//   hosts: [vm1, vm2, vm3, vm4]        # the allocation's hosts, in hostfile order
//   date: 2026-11-23T10:00:00Z         # when the probe ran (UTC)
//   partial: false                     # true when something could not be measured
//   skipped: ["...why..."]             # what was not measured, and why (may be empty)
//   sizes: [64, 1024, 65536]           # message sizes measured, bytes, ascending
//   reference_size: 65536              # the size the table and sensibility are ranked at
//   latency_us:                        # per size, N x N one-way latency in µs
//     64: [[~, 31.2, ...], ...]        #   row = source, column = destination, ~ = none
//   spread_us: {64: [[...]], ...}      # per size, N x N interquartile range in µs
//   fit:                               # latency(size) = alpha_us + size / beta_bytes_per_us
//     alpha_us: [[...]]                #   sizes above the last piece's bound (every size
//     beta_bytes_per_us: [[...]]       #   without pieces); bytes per µs = MB/s
//     pieces:                          # optional, bounds ascending: the sizes up to
//       - up_to_bytes: 1024            #   up_to_bytes (and above the previous bound),
//         alpha_us: [[...]]            #   fitted on their own measurements; a path's ~:
//         beta_bytes_per_us: [[...]]   #   the next piece that has one, else the fit above
//   sensibility: [[0, 1, ...], ...]    # N x N, or ~ when not measured (--quick)
//   sensibility_info:
//     factor: 2.0                      # a path counts as affected above factor x base
//     size: 65536
//     injections: [[0, 1], ...]        # the (source, destination) pairs flooded
//     possible: 12                     # N (N - 1); fewer injections = sampled
//   alternatives: [[[], [2, 3], ...]]  # [source][destination] -> intermediates that beat
//                                      #   the direct path, best first; [] when none does
//   detours:                           # [source][destination] -> every intermediate, ranked
//     - - - {via: 2, latency_us: 61.0, robustness: 1, beats_direct: false}
//
// Indices are 0-based positions in `hosts`. Validation is complete: every error is a
// ConfigError "FILE:LINE:COLUMN: message".
#pragma once

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mcm/host_match.h"

namespace mcm {

/// N x N values; NaN where nothing was measured (the diagonal always).
using Matrix = std::vector<std::vector<double>>;
inline constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();
inline bool measured(double value) {
  return !std::isnan(value);
}
Matrix empty_matrix(std::size_t n);

/// One one-hop detour source -> via -> destination, as ranked by mcm-probe.
struct Detour {
  int via = -1;
  double latency_us = kNotMeasured;  ///< source->via + via->destination at reference_size
  int robustness = 0;                ///< sensibility weights of both legs (lower: robuster)
  bool beats_direct = false;         ///< faster than the direct path at reference_size

  bool operator==(const Detour& o) const;
};

/// One line of a piecewise fit (Topology::pieces).
struct FitPiece {
  long long up_to_bytes = 0;  ///< the largest size it serves
  Matrix alpha_us;            ///< NaN for a path without this piece
  Matrix beta_bytes_per_us;
};

struct SensibilityInfo {
  double factor = 2.0;
  long long size = 0;
  std::vector<std::pair<int, int>> injections;
  int possible = 0;
};

struct Topology {
  static constexpr const char* kFormat = "mcm-topology/1";

  std::vector<std::string> hosts;
  std::string date;
  bool partial = false;
  std::vector<std::string> skipped;
  std::vector<long long> sizes;
  long long reference_size = 0;
  std::vector<Matrix> latency_us;  ///< [size index][source][destination]
  std::vector<Matrix> spread_us;   ///< likewise
  Matrix alpha_us;                 ///< empty when not fitted yet
  Matrix beta_bytes_per_us;
  /// The lines of the smaller sizes, by ascending bound; empty when every size has the one
  /// line above (files written before pieces existed, or too few sizes measured).
  std::vector<FitPiece> pieces;
  std::optional<std::vector<std::vector<int>>> sensibility;
  SensibilityInfo sensibility_info;
  std::vector<std::vector<std::vector<int>>> alternatives;  ///< empty when not ranked yet
  std::vector<std::vector<std::vector<Detour>>> detours;    ///< likewise

  std::size_t size() const { return hosts.size(); }
  /// The index of `size` in sizes, or -1.
  int size_index(long long size) const;
  /// alpha + size / beta for the path from the fit of the size's own range: the first
  /// piece whose bound is >= size and that has the path, else alpha_us/beta_bytes_per_us;
  /// NaN without a fit for the path.
  double predict_us(int source, int destination, long long size) const;
};

/// The topology as YAML (the format above), with a comment header.
std::string to_yaml(const Topology& topology);

/// Reads and validates a topology file. Throws ConfigError: "cannot read topology file
/// 'PATH': ..." or "PATH:LINE:COLUMN: message".
Topology load_topology(const std::string& path);
Topology parse_topology(const std::string& text, const std::string& file_name);

/// Refuses a table measured on other hosts than the job's, and says which table host each
/// job host is: for each of `job_hosts`, the index of the same host in topology.hosts, found
/// by spelling, address or short name (mcm/host_match.h), so that a table probed with a
/// hostfile of names serves a job launched with one of addresses. Order does not matter,
/// and a job on a subset of the measured hosts is accepted. Throws ConfigError
/// "FILE: measured on vm1, vm2, but this job runs on vm7, which the table does not know ...".
std::vector<int> check_hosts(const Topology& topology, const std::vector<std::string>& job_hosts,
                             const std::string& file_name,
                             const Resolver& resolve = resolve_addresses);

}  // namespace mcm
