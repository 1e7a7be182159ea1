#include "findings.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "placement.h"

namespace mcm::report {
namespace {

std::string rank_list(const std::vector<int>& ranks) {
  std::string text;
  for (size_t i = 0; i < ranks.size(); ++i)
    text += (i == 0 ? "" : i + 1 == ranks.size() ? " and " : ", ") + std::to_string(ranks[i]);
  return text;
}

}  // namespace

std::string megabytes(double bytes) {
  if (bytes >= 1e9) return fmt::format("{:.1f} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.1f} MB", bytes / 1e6);
  return fmt::format("{:.0f} kB", bytes / 1e3);
}

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int switches_between(const Run& run, const std::string& from, const std::string& to) {
  int n = 0;
  for (const PathChange& c : run.changes)
    if (c.from_vm == from && c.to_vm == to && c.kind == "switch") ++n;
  return n;
}

/// Whether the runtime found the VM path `from` -> `to` congested long enough that waits on
/// it are the network's doing: switched to a detour, or in zone medium or high for a good
/// part of the run.
bool path_congested(const Run& run, const FindingRules& rules, const std::string& from,
                    const std::string& to) {
  // Samples cover whole seconds: the first and last may reach past the run's ends.
  const double congested = std::min(congested_seconds(run, from, to), run.wall_s());
  if (switches_between(run, from, to) > 0) return congested >= 1;
  return congested >= rules.min_congested_s &&
         congested >= rules.min_congested_share * run.wall_s();
}

/// Network: per VM path, the waits of its rank pairs, when the path was congested.
void network_findings(const Run& run, const FindingRules& rules, double min_wait,
                      std::vector<Finding>& out) {
  struct Path {
    double wait_s = 0;
    std::set<int> ranks;
    std::uint64_t waited = 0;
  };
  std::map<std::pair<int, int>, Path> paths;
  for (int s = 0; s < run.rank_count; ++s)
    for (int r = 0; r < run.rank_count; ++r) {
      const PairInfo& p = run.pair(s, r);
      const int vs = run.ranks[static_cast<size_t>(s)].vm,
                vr = run.ranks[static_cast<size_t>(r)].vm;
      if (p.wait_s <= 0 || vs < 0 || vr < 0 || vs == vr) continue;
      Path& path = paths[{vs, vr}];
      path.wait_s += p.wait_s;
      path.waited += p.waited;
      path.ranks.insert(s);
      path.ranks.insert(r);
    }
  for (const auto& [vms, path] : paths) {
    const std::string from = run.vm_name(vms.first), to = run.vm_name(vms.second);
    if (path.wait_s < min_wait || !path_congested(run, rules, from, to)) continue;
    const double congested = std::min(congested_seconds(run, from, to), run.wall_s());
    const int switches = switches_between(run, from, to);
    Finding f;
    f.kind = Finding::Kind::network;
    f.ranks.assign(path.ranks.begin(), path.ranks.end());
    f.vms = {from, to};
    f.title = "network: the path " + from + " -> " + to + " was congested";
    f.figures = fmt::format(
        "{:.0f} s of the run's {:.0f} s in zone medium or high{}; ranks {} "
        "waited {:.2f} s for {} messages on it",
        congested, run.wall_s(),
        switches > 0 ? fmt::format(", {} switch(es) to a detour", switches) : "",
        rank_list(f.ranks), path.wait_s, path.waited);
    f.advice = switches > 0
                   ? "the runtime detoured it; if this recurs, run on VMs whose path is not shared "
                     "with other tenants, or let lmcd move a VM (docs/lmcd.md)"
                   : "run with --mode adaptive and the probe's table (--paths) so that the "
                     "runtime detours it";
    f.explained_s = path.wait_s;
    out.push_back(std::move(f));
  }
}

/// Whether VM `vm` forwarded a detour during the run (the via of a switch): its daemon's
/// forwarding then ran on the VM's cores, beside its ranks.
bool forwarded_a_detour(const Run& run, const std::string& vm) {
  return std::any_of(run.changes.begin(), run.changes.end(),
                     [&](const PathChange& c) { return c.kind == "switch" && c.to_via == vm; });
}

/// Late senders: ranks that computed clearly longer, and the waits for their messages. A
/// wait on a congested path is the network finding's, not evidence of a late sender; nor
/// is the longer computing of a rank whose VM forwarded a detour: its daemon took the
/// cores' time (on the 2-core testbed such a rank computed 1.6-2.0x the median rank on a
/// congested CG, the network finding's cost, not the application's imbalance).
void late_sender_findings(const Run& run, const FindingRules& rules, double min_wait,
                          std::vector<Finding>& out) {
  std::vector<double> computed;
  for (const RankInfo& r : run.ranks)
    if (r.present && r.engine) computed.push_back(r.outside_mpi_s);
  const double typical = median(computed);
  for (int s = 0; s < run.rank_count; ++s) {
    const RankInfo& sender = run.ranks[static_cast<size_t>(s)];
    if (!sender.present || !sender.engine ||
        sender.outside_mpi_s < rules.imbalance_factor * typical ||
        sender.outside_mpi_s - typical < rules.min_imbalance_share * run.wall_s() ||
        (sender.vm >= 0 && forwarded_a_detour(run, run.vm_name(sender.vm))))
      continue;
    double waited = 0;
    std::vector<int> receivers;
    for (int r = 0; r < run.rank_count; ++r) {
      const double w = run.pair(s, r).wait_s;
      const int receiver_vm = run.ranks[static_cast<size_t>(r)].vm;
      if (r == s || w <= 0) continue;
      if (sender.vm >= 0 && receiver_vm >= 0 && receiver_vm != sender.vm &&
          path_congested(run, rules, run.vm_name(sender.vm), run.vm_name(receiver_vm)))
        continue;
      waited += w;
      receivers.push_back(r);
    }
    if (waited < min_wait) continue;
    Finding f;
    f.kind = Finding::Kind::late_sender;
    f.ranks = {s};
    f.ranks.insert(f.ranks.end(), receivers.begin(), receivers.end());
    f.vms = {run.vm_name(sender.vm)};
    f.title = "late sender: rank " + std::to_string(s) + " (" + run.vm_name(sender.vm) +
              ") computes longer than the others";
    f.figures = fmt::format(
        "it computed {:.2f} s, the median rank {:.2f} s ({:.1f}x); ranks {} waited {:.2f} s for "
        "its messages",
        sender.outside_mpi_s, typical, typical > 0 ? sender.outside_mpi_s / typical : 0,
        rank_list(receivers), waited);
    f.advice = "an imbalance of the application's work, not the network: give rank " +
               std::to_string(s) + " less work (its part of the decomposition), or more CPU";
    f.explained_s = waited;
    out.push_back(std::move(f));
  }
}

/// Mapping: the traffic between VMs, and how much of it a better placement keeps inside.
void mapping_findings(const Run& run, const FindingRules& rules, const ProbeTable* table,
                      std::vector<Finding>& out) {
  PlacementProblem p;
  std::vector<int> current;
  if (!placement_problem(run, table, &p, &current) || p.capacity.size() < 2) return;
  double all = 0;
  for (const auto& row : p.bytes)
    for (double b : row) all += b;
  const double now = inter_vm_bytes(p, current);
  if (all <= 0 || now < rules.min_inter_vm_share * all) return;
  const Placement better = best_placement(p, current);
  const double then = inter_vm_bytes(p, better.vm_of_rank);
  if (now - then < rules.min_mapping_gain * now) return;
  // The heaviest pairs the run split and the better placement keeps together.
  struct Split {
    double bytes;
    int a, b;
  };
  std::vector<Split> split;
  for (int a = 0; a < p.ranks; ++a)
    for (int b = a + 1; b < p.ranks; ++b) {
      const double bytes = p.bytes[static_cast<size_t>(a)][static_cast<size_t>(b)] +
                           p.bytes[static_cast<size_t>(b)][static_cast<size_t>(a)];
      if (bytes > 0 && current[static_cast<size_t>(a)] != current[static_cast<size_t>(b)] &&
          better.vm_of_rank[static_cast<size_t>(a)] == better.vm_of_rank[static_cast<size_t>(b)])
        split.push_back({bytes, a, b});
    }
  std::sort(split.begin(), split.end(),
            [](const Split& x, const Split& y) { return x.bytes > y.bytes; });
  Finding f;
  f.kind = Finding::Kind::mapping;
  std::string pairs;
  std::set<int> ranks;
  for (size_t i = 0; i < split.size() && i < 4; ++i) {
    const Split& s = split[i];
    pairs += fmt::format("{}{} <-> {} ({}, {} / {})", i == 0 ? "" : ", ", s.a, s.b,
                         megabytes(s.bytes), run.vm_name(current[static_cast<size_t>(s.a)]),
                         run.vm_name(current[static_cast<size_t>(s.b)]));
    ranks.insert(s.a);
    ranks.insert(s.b);
  }
  f.ranks.assign(ranks.begin(), ranks.end());
  f.title = "mapping: heavy pairs of ranks run on different VMs";
  f.figures = fmt::format(
      "{} ({:.0f}% of all traffic) crossed VMs; a placement with the same ranks per VM ({}) "
      "leaves {} between VMs. Split pairs it joins: {}",
      megabytes(now), 100 * now / all, better.method, megabytes(then), pairs);
  f.advice = "place the ranks with mcm-report --rankfile FILE and mcmrun --rankfile FILE";
  f.explained_s = 0;  // bytes, not seconds: after the timed findings
  out.push_back(std::move(f));
}

}  // namespace

const char* to_string(Finding::Kind kind) {
  switch (kind) {
    case Finding::Kind::network:
      return "network";
    case Finding::Kind::late_sender:
      return "late sender";
    case Finding::Kind::mapping:
      return "mapping";
  }
  return "?";
}

double congested_seconds(const Run& run, const std::string& from, const std::string& to) {
  const auto it = run.samples.find({from, to});
  if (it == run.samples.end()) return 0;
  double seconds = 0;
  for (const PathSample& s : it->second)
    if (s.via.empty() && (s.zone == "medium" || s.zone == "high")) seconds += 1;
  return seconds;
}

bool placement_problem(const Run& run, const ProbeTable* table, PlacementProblem* problem,
                       std::vector<int>* current) {
  PlacementProblem& p = *problem;
  p.ranks = run.rank_count;
  p.bytes.assign(static_cast<size_t>(p.ranks),
                 std::vector<double>(static_cast<size_t>(p.ranks), 0));
  current->assign(static_cast<size_t>(p.ranks), 0);
  int vms = 0;
  for (int r = 0; r < p.ranks; ++r) {
    const RankInfo& info = run.ranks[static_cast<size_t>(r)];
    if (!info.present || info.vm < 0) return false;
    (*current)[static_cast<size_t>(r)] = info.vm;
    vms = std::max(vms, info.vm + 1);
    for (int b = 0; b < p.ranks; ++b)
      p.bytes[static_cast<size_t>(r)][static_cast<size_t>(b)] =
          static_cast<double>(run.pair(r, b).bytes);
  }
  p.capacity.assign(static_cast<size_t>(vms), 0);
  for (int vm : *current) ++p.capacity[static_cast<size_t>(vm)];
  p.cost.clear();
  if (table != nullptr && table->byte_cost.size() >= static_cast<size_t>(vms))
    p.cost = table->byte_cost;
  return true;
}

std::vector<Finding> find_problems(const Run& run, const FindingRules& rules,
                                   const ProbeTable* table) {
  const double min_wait = std::max(rules.min_wait_s, rules.min_wait_share * run.wall_s());
  std::vector<Finding> out;
  network_findings(run, rules, min_wait, out);
  late_sender_findings(run, rules, min_wait, out);
  mapping_findings(run, rules, table, out);
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    return a.explained_s > b.explained_s;
  });
  return out;
}

}  // namespace mcm::report
