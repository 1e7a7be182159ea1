#include "run_summary.h"

#include <algorithm>

namespace mcm::report {

RunSummary summarize(const Run& run, const FindingRules& rules, const std::string& paths) {
  RunSummary s;
  s.wall_s = run.wall_s();
  s.ranks = run.rank_count;
  s.vms = static_cast<int>(run.vm_names.size());
  for (int a = 0; a < run.rank_count; ++a) {
    const RankInfo& ra = run.ranks[static_cast<size_t>(a)];
    s.detoured_messages += ra.detoured_messages;
    s.engine = s.engine || ra.engine;
    if (!run.vm_names.empty()) continue;
    s.vms = std::max(s.vms, ra.vm + 1);
  }
  for (int a = 0; a < run.rank_count; ++a)
    for (int b = 0; b < run.rank_count; ++b) {
      const PairInfo& p = run.pair(a, b);
      s.messages += p.messages;
      s.bytes += p.bytes;
      if (run.ranks[static_cast<size_t>(a)].vm != run.ranks[static_cast<size_t>(b)].vm)
        s.inter_vm_bytes += p.bytes;
      s.received += p.received;
      s.waited += p.waited;
      s.wait_s += p.wait_s;
      if (p.wait_s > s.worst_wait_s) {
        s.worst_wait_s = p.wait_s;
        s.worst_from = a;
        s.worst_to = b;
      }
    }
  for (const PathChange& c : run.changes) (c.kind == "switch" ? s.switches : s.returns) += 1;
  s.table = load_probe_table(run, paths, &s.table_note);
  s.findings = find_problems(run, rules, s.table ? &*s.table : nullptr);
  return s;
}

}  // namespace mcm::report
