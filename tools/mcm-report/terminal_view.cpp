#include "terminal_view.h"

#include <fmt/format.h>

#include <algorithm>

namespace mcm::report {
namespace {

std::string percent(double part, double all) {
  return all > 0 ? fmt::format("{:.0f}%", 100 * part / all) : "-";
}

std::string path_name(const std::string& via) {
  return via.empty() ? "direct" : "via " + via;
}

/// Short name of a run for the comparison: its directory's last component.
std::string short_name(const std::string& directory) {
  std::string d = directory;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  const auto slash = d.rfind('/');
  return slash == std::string::npos ? d : d.substr(slash + 1);
}

}  // namespace

std::string terminal_summary(const Run& run, const RunSummary& s) {
  std::string out = fmt::format("Run {} (mode {}), {}\n", run.id, run.mode.empty() ? "?" : run.mode,
                                run.directory);
  out += fmt::format(
      "  time:        {:.2f} s (the longest rank, MPI_Init to MPI_Finalize); {} "
      "ranks on {} VMs\n",
      s.wall_s, s.ranks, s.vms);
  out += fmt::format("  traffic:     {} messages, {}; between VMs {} ({})\n", s.messages,
                     megabytes(static_cast<double>(s.bytes)),
                     megabytes(static_cast<double>(s.inter_vm_bytes)),
                     percent(static_cast<double>(s.inter_vm_bytes), static_cast<double>(s.bytes)));
  out += fmt::format(
      "  late:        {} of {} messages arrived after their receive was posted "
      "({}); the receivers waited {:.2f} s in all",
      s.waited, s.received, percent(static_cast<double>(s.waited), static_cast<double>(s.received)),
      s.wait_s);
  if (s.worst_from >= 0)
    out += fmt::format(", most rank {} for rank {} ({:.2f} s)", s.worst_to, s.worst_from,
                       s.worst_wait_s);
  out += "\n";
  out += fmt::format(
      "  paths:       {} switch(es) to a detour, {} return(s); {} messages "
      "detoured\n",
      s.switches, s.returns, s.detoured_messages);
  for (const PathChange& c : run.changes)
    out += fmt::format("               {:7.1f} s  {} {} -> {}: {} -> {}\n", c.t, c.kind, c.from_vm,
                       c.to_vm, path_name(c.from_via), path_name(c.to_via));
  out +=
      fmt::format("  probe table: {}\n",
                  s.table ? s.table->file + " (its latencies in the HTML report)" : s.table_note);
  out += fmt::format("  migrations:  {}\n", run.migrations.size());
  for (const Migration& m : run.migrations)
    out += fmt::format("               {:7.1f} s  {} (domain {}) moved to {}\n", m.t, m.vm,
                       m.domain, m.to_host);
  out += "\nFindings";
  if (s.findings.empty()) {
    out +=
        ": none. No rank waited long for another's messages on a congested path, no rank "
        "computed clearly longer than the others, and no placement keeps much more of the "
        "traffic inside VMs.\n";
  } else {
    out += ":\n";
    int n = 0;
    for (const Finding& f : s.findings)
      out += fmt::format("  {}. {}\n     {}\n     advice: {}\n", ++n, f.title, f.figures, f.advice);
  }
  out +=
      "\nRanks (computed: time outside MPI; waited: for messages from other ranks; -: not "
      "measured in mode " +
      run.mode + "):\n";
  out += "   rank  VM              time s  computed s  waited s  late msgs\n";
  for (int r = 0; r < run.rank_count; ++r) {
    const RankInfo& info = run.ranks[static_cast<size_t>(r)];
    if (!info.present) {
      out += fmt::format("  {:5d}  (no records)\n", r);
      continue;
    }
    double waited = 0;
    std::uint64_t late = 0;
    for (int from = 0; from < run.rank_count; ++from) {
      waited += run.pair(from, r).wait_s;
      late += run.pair(from, r).waited;
    }
    if (!info.engine) {
      out += fmt::format("  {:5d}  {:14.14s}  {:6.2f}  {:>10s}  {:>8s}  {:>9s}\n", r,
                         run.vm_name(info.vm), info.wall_s, "-", "-", "-");
      continue;
    }
    out += fmt::format("  {:5d}  {:14.14s}  {:6.2f}  {:10.2f}  {:8.2f}  {:9d}\n", r,
                       run.vm_name(info.vm), info.wall_s, info.outside_mpi_s, waited, late);
  }
  if (!run.late.empty()) {
    out += "\nLate messages per VM path (the thesis's t_t against t_p, medians):\n";
    for (const LatePath& l : run.late)
      out += fmt::format(
          "  {} -> {} ({}): {} late, t_t {:.0f} µs, t_p {:.0f} µs, t_t > t_p for "
          "{}\n",
          l.from_vm, l.to_vm, path_name(l.via), l.messages, l.transit_p50_us, l.wait_p50_us,
          percent(static_cast<double>(l.transit_over_wait), static_cast<double>(l.messages)));
  }
  if (!run.problems.empty()) {
    out += fmt::format("\nWhile reading the records ({} files, {} cut short):\n", run.files_read,
                       run.files_cut_short);
    for (const ReadProblem& p : run.problems) out += fmt::format("  {}: {}\n", p.where, p.what);
  }
  return out;
}

std::string terminal_comparison(const std::vector<Run>& runs,
                                const std::vector<RunSummary>& summaries) {
  std::string out = "Runs side by side (ratio: time against the first run):\n";
  out +=
      "  run                     mode       time s   ratio  late msgs  waited s  switches  "
      "migrations  findings\n";
  const double first = summaries.empty() ? 0 : summaries.front().wall_s;
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunSummary& s = summaries[i];
    std::string kinds;
    for (const Finding& f : s.findings)
      if (kinds.find(to_string(f.kind)) == std::string::npos)
        kinds += (kinds.empty() ? "" : ", ") + std::string(to_string(f.kind));
    // Waits are measured by the engine only (modes relay, adaptive).
    const std::string late = s.engine ? std::to_string(s.waited) : "-";
    const std::string waited = s.engine ? fmt::format("{:.2f}", s.wait_s) : "-";
    out += fmt::format(
        "  {:22.22s}  {:9.9s}  {:6.2f}  {:6.2f}  {:>9s}  {:>8s}  {:8d}  {:10d}  {}\n",
        short_name(runs[i].directory), runs[i].mode, s.wall_s, first > 0 ? s.wall_s / first : 0.0,
        late, waited, s.switches, runs[i].migrations.size(), kinds.empty() ? "none" : kinds);
  }
  for (size_t i = 1; i < runs.size(); ++i) {
    const double d = summaries[i].wall_s - first;
    out += fmt::format("  {} against {}: {:+.2f} s ({:+.0f}%)\n", short_name(runs[i].directory),
                       short_name(runs[0].directory), d, first > 0 ? 100 * d / first : 0.0);
  }
  return out;
}

}  // namespace mcm::report
