#include "html_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "svg.h"

namespace mcm::report {
namespace {

constexpr const char* kStyle = R"(
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1100px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; border-bottom: 1px solid #ddd; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.5em 0; }
td, th { padding: 3px 10px; border-bottom: 1px solid #eee; text-align: right; }
td:first-child, th:first-child { text-align: left; }
.finding { border-left: 4px solid #888; padding: 0.3em 0.8em; margin: 0.6em 0; background: #f8f8f8; }
.finding.network { border-color: #d7301f; } .finding.late-sender { border-color: #fdae61; }
.finding.mapping { border-color: #2c7fb8; }
.kind { font-weight: bold; text-transform: uppercase; font-size: 0.8em; color: #555; }
.problem { color: #a33; } .figures { margin: 0.2em 0; } .advice { font-style: italic; }
svg { display: block; margin: 0.8em 0; } svg text { font-size: 11px; fill: #333; }
svg .title { font-size: 13px; font-weight: bold; } svg .axis { fill: #666; }
svg .mark { font-size: 10px; fill: #111; }
.pictures { display: flex; flex-wrap: wrap; gap: 2em; }
)";

std::string seconds(double s) {
  return fmt::format("{:.2f} s", s);
}
std::string bytes_text(double b) {
  return megabytes(b);
}
std::string count_text(double n) {
  return fmt::format("{:.0f}", n);
}
std::string microseconds(double us) {
  return us >= 1000 ? fmt::format("{:.1f} ms", us / 1000) : fmt::format("{:.0f} µs", us);
}
std::string wait_text(double s) {
  return s >= 1 ? fmt::format("{:.1f} s", s) : fmt::format("{:.0f} ms", s * 1e3);
}

std::string findings_html(const RunSummary& s) {
  if (s.findings.empty())
    return "<p>No findings: no rank waited long for another's messages on a congested path, "
           "no rank computed clearly longer than the others, and no placement keeps much more "
           "of the traffic inside VMs.</p>\n";
  std::string out;
  for (const Finding& f : s.findings) {
    std::string kind = to_string(f.kind);
    std::replace(kind.begin(), kind.end(), ' ', '-');
    out += fmt::format(
        "<div class=\"finding {}\"><div class=\"kind\">{}</div><div>{}</div>"
        "<div class=\"figures\">{}</div><div class=\"advice\">{}</div></div>\n",
        kind, escape(to_string(f.kind)), escape(f.title), escape(f.figures), escape(f.advice));
  }
  return out;
}

std::string run_html(const Run& run, const RunSummary& s, int index) {
  std::string out = fmt::format("<section id=\"run{}\">\n<h2>{} — mode {}</h2>\n", index,
                                escape(run.directory), escape(run.mode));
  out += "<table>\n";
  out += fmt::format("<tr><td>run</td><td>{}</td></tr>\n", escape(run.id));
  out += fmt::format("<tr><td>time (the longest rank)</td><td>{}</td></tr>\n", seconds(s.wall_s));
  out += fmt::format("<tr><td>ranks, VMs</td><td>{}, {}</td></tr>\n", s.ranks, s.vms);
  out += fmt::format("<tr><td>traffic</td><td>{} messages, {}; between VMs {}</td></tr>\n",
                     s.messages, bytes_text(static_cast<double>(s.bytes)),
                     bytes_text(static_cast<double>(s.inter_vm_bytes)));
  out += fmt::format(
      "<tr><td>late messages (the receiver waited)</td><td>{} of {}; {} waited in all</td></tr>\n",
      s.waited, s.received, wait_text(s.wait_s));
  out += fmt::format(
      "<tr><td>path changes</td><td>{} switches, {} returns; {} messages "
      "detoured</td></tr>\n",
      s.switches, s.returns, s.detoured_messages);
  out += fmt::format("<tr><td>migrations</td><td>{}</td></tr>\n", run.migrations.size());
  out += "</table>\n<h3>Findings</h3>\n" + findings_html(s);

  std::vector<std::string> labels;
  std::vector<std::vector<double>> bytes(static_cast<size_t>(run.rank_count)), waits(bytes.size());
  for (int a = 0; a < run.rank_count; ++a) {
    labels.push_back(fmt::format("{} ({})", a, run.vm_name(run.ranks[static_cast<size_t>(a)].vm)));
    for (int b = 0; b < run.rank_count; ++b) {
      bytes[static_cast<size_t>(a)].push_back(static_cast<double>(run.pair(a, b).bytes));
      waits[static_cast<size_t>(a)].push_back(run.pair(a, b).wait_s);
    }
  }
  out += "<h3>Traffic and waits between ranks</h3>\n<div class=\"pictures\">\n";
  out += heatmap_svg("Bytes sent (rank, VM)", labels, bytes, bytes_text);
  out +=
      heatmap_svg("Time the receiver waited for the sender's messages", labels, waits, wait_text);
  out += "</div>\n";
  if (s.table) {
    std::vector<std::vector<double>> latency = s.table->latency_us;
    for (auto& row : latency)
      for (double& v : row) v = std::isnan(v) ? 0 : v;
    out += fmt::format("<h3>The probe's matrices ({})</h3>\n<div class=\"pictures\">\n",
                       escape(s.table->file));
    out += heatmap_svg(fmt::format("One-way latency at {} bytes before the run", s.table->size),
                       run.vm_names, latency, microseconds);
    if (!s.table->sensibility.empty())
      out += heatmap_svg("Sensibility: floods of other paths that slowed it", run.vm_names,
                         s.table->sensibility, count_text);
    out += "</div>\n";
  }

  std::vector<std::string> rank_labels;
  std::vector<std::vector<double>> parts;
  bool all_split = true;  // every rank ran the engine: no "not split" part
  for (int r = 0; r < run.rank_count; ++r) {
    const RankInfo& info = run.ranks[static_cast<size_t>(r)];
    rank_labels.push_back(labels[static_cast<size_t>(r)]);
    double waited = 0;
    for (int from = 0; from < run.rank_count; ++from) waited += run.pair(from, r).wait_s;
    if (!info.engine) {  // modes off and record: the time only
      parts.push_back({0, 0, 0, info.wall_s});
      all_split = false;
      continue;
    }
    const double in_mpi = std::max(0.0, info.wall_s - info.outside_mpi_s);
    parts.push_back(
        {info.outside_mpi_s, std::min(waited, in_mpi), std::max(0.0, in_mpi - waited), 0});
  }
  std::vector<std::string> names = {"computing", "waiting for messages", "other MPI",
                                    "not split (no engine in mode " + run.mode + ")"};
  if (all_split) {
    names.pop_back();
    for (auto& p : parts) p.pop_back();
  }
  out += bars_svg("Where each rank's time went", rank_labels, parts, names,
                  {"#41ab5d", "#fd8d3c", "#bdbdbd", "#9ecae1"}, "s");

  // Timelines: every VM path that changed, or that was congested.
  std::set<std::pair<std::string, std::string>> shown;
  for (const PathChange& c : run.changes) shown.insert({c.from_vm, c.to_vm});
  for (const auto& [path, samples] : run.samples)
    for (const PathSample& p : samples)
      if (p.via.empty() && p.zone != "low") shown.insert(path);
  if (!shown.empty()) out += "<h3>Paths that changed or were congested</h3>\n";
  for (const auto& path : shown) {
    std::vector<PathChange> changes;
    for (const PathChange& c : run.changes)
      if (c.from_vm == path.first && c.to_vm == path.second) changes.push_back(c);
    const auto it = run.samples.find(path);
    out += timeline_svg(path.first + " → " + path.second,
                        it == run.samples.end() ? std::vector<PathSample>{} : it->second, changes,
                        s.wall_s);
  }
  if (!run.migrations.empty()) {
    out +=
        "<h3>Migrations</h3>\n<table><tr><th>time</th><th>VM</th><th>domain</th><th>to "
        "host</th></tr>\n";
    for (const Migration& m : run.migrations)
      out += fmt::format("<tr><td>{:.1f} s</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", m.t,
                         escape(m.vm), escape(m.domain), escape(m.to_host));
    out += "</table>\n";
  }
  if (!run.late.empty()) {
    out +=
        "<h3>Late messages per VM path (the thesis's t<sub>t</sub> against t<sub>p</sub>)</h3>\n"
        "<table><tr><th>path</th><th>late</th><th>t<sub>t</sub> median</th><th>t<sub>p</sub> "
        "median</th><th>t<sub>t</sub> &gt; t<sub>p</sub></th></tr>\n";
    for (const LatePath& l : run.late)
      out += fmt::format(
          "<tr><td>{} → {} ({})</td><td>{}</td><td>{:.0f} µs</td><td>{:.0f} "
          "µs</td><td>{}</td></tr>\n",
          escape(l.from_vm), escape(l.to_vm), l.via.empty() ? "direct" : "via " + escape(l.via),
          l.messages, l.transit_p50_us, l.wait_p50_us, l.transit_over_wait);
    out += "</table>\n";
  }
  if (!run.problems.empty()) {
    out += "<h3>While reading the records</h3>\n<ul>\n";
    for (const ReadProblem& p : run.problems)
      out += fmt::format("<li class=\"problem\">{}: {}</li>\n", escape(p.where), escape(p.what));
    out += "</ul>\n";
  }
  return out + "</section>\n";
}

}  // namespace

std::string html_report(const std::vector<Run>& runs, const std::vector<RunSummary>& summaries) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<title>MCM report: {}</title>\n<style>{}</style></head>\n<body>\n<h1>MCM report</h1>\n",
      escape(runs.size() == 1 ? runs.front().directory : std::to_string(runs.size()) + " runs"),
      kStyle);
  if (runs.size() > 1) {
    std::vector<std::string> labels;
    std::vector<std::vector<double>> times;
    out +=
        "<h2>Runs side by side</h2>\n<table><tr><th>run</th><th>mode</th><th>time</th>"
        "<th>against the first</th><th>waited</th><th>switches</th><th>migrations</th>"
        "<th>findings</th></tr>\n";
    const double first = summaries.front().wall_s;
    for (size_t i = 0; i < runs.size(); ++i) {
      const RunSummary& s = summaries[i];
      labels.push_back(runs[i].directory);
      times.push_back({s.wall_s});
      out += fmt::format(
          "<tr><td><a href=\"#run{}\">{}</a></td><td>{}</td><td>{:.2f} s</td><td>{}</td>"
          "<td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
          i, escape(runs[i].directory), escape(runs[i].mode), s.wall_s,
          first > 0 ? fmt::format("{:.2f}x", s.wall_s / first) : "-", wait_text(s.wait_s),
          s.switches, runs[i].migrations.size(), s.findings.size());
    }
    out += "</table>\n";
    out += bars_svg("Time of each run", labels, times, {"time"}, {"#2c7fb8"}, "s");
  }
  for (size_t i = 0; i < runs.size(); ++i)
    out += run_html(runs[i], summaries[i], static_cast<int>(i));
  return out + "</body></html>\n";
}

}  // namespace mcm::report
