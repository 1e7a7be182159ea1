#include "json_view.h"

#include <nlohmann/json.hpp>

namespace mcm::report {

std::string json_summary(const std::vector<Run>& runs, const std::vector<RunSummary>& summaries) {
  nlohmann::json out = {{"schema", "mcm-report-summary"}, {"version", 1}};
  nlohmann::json list = nlohmann::json::array();
  for (size_t i = 0; i < runs.size(); ++i) {
    const Run& run = runs[i];
    const RunSummary& s = summaries[i];
    nlohmann::json findings = nlohmann::json::array();
    for (const Finding& f : s.findings)
      findings.push_back({{"kind", to_string(f.kind)},
                          {"title", f.title},
                          {"figures", f.figures},
                          {"advice", f.advice},
                          {"ranks", f.ranks},
                          {"vms", f.vms},
                          {"explained_s", f.explained_s}});
    nlohmann::json problems = nlohmann::json::array();
    for (const ReadProblem& p : run.problems)
      problems.push_back({{"where", p.where}, {"what", p.what}});
    nlohmann::json migrations = nlohmann::json::array();
    for (const Migration& m : run.migrations)
      migrations.push_back(
          {{"t", m.t}, {"vm", m.vm}, {"domain", m.domain}, {"to_host", m.to_host}});
    list.push_back({{"directory", run.directory},
                    {"run", run.id},
                    {"mode", run.mode},
                    {"wall_s", s.wall_s},
                    {"ranks", s.ranks},
                    {"vms", s.vms},
                    {"messages", s.messages},
                    {"bytes", s.bytes},
                    {"inter_vm_bytes", s.inter_vm_bytes},
                    {"late_messages", s.waited},
                    {"wait_s", s.wait_s},
                    {"switches", s.switches},
                    {"returns", s.returns},
                    {"detoured_messages", s.detoured_messages},
                    {"migrations", migrations},
                    {"findings", findings},
                    {"problems", problems},
                    {"files_read", run.files_read},
                    {"files_cut_short", run.files_cut_short}});
  }
  out["runs"] = list;
  return out.dump(2) + "\n";
}

}  // namespace mcm::report
