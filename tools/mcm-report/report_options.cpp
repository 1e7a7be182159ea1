#include "report_options.h"

#include "mcm/error.h"
#include "mcm/options.h"

namespace mcm::report {

const char* report_help() {
  return R"(usage: mcm-report [options] DIR [DIR...]

What happened in a run: reads the run records that mcmrun --log-dir DIR left in DIR
(complete in modes relay and adaptive; the time and traffic of each rank in modes off
and record), prints a summary and the findings (network congestion,
late senders, mapping), and writes a self-contained HTML report with pictures.
With several directories, compares the runs side by side (the first is the reference).

options:
  --html FILE      write the HTML report to FILE (default: DIR/report.html for one run,
                   DIR1/comparison.html for several)
  --no-html        write no HTML report
  --json FILE      write the summary as JSON to FILE ("-": standard output)
  --rankfile FILE  write an Open MPI rankfile of a better placement of the first run's
                   ranks (same ranks per VM; Scotch's mapping, then local improvements);
                   use it with mcmrun --rankfile FILE
  --paths TOPO     the probe's table (mcm-probe's topo.yaml) for the report's latency
                   matrix and the placement's path costs (default: the table the run's
                   daemons were given with mcmrun --paths, if it is still there)
  -q, --quiet      no summary of each run on the terminal (the comparison of
                   several runs is still printed)
  -h, --help       this text
  --version        the version

exit status: 0 when every directory was read (problems in some records are reported,
not fatal), 1 when a directory could not be read, 2 for a mistake on the command line.

examples:
  mcmrun --mode adaptive --paths topo.yaml --log-dir runs/1 --hostfile hosts -np 16 ./app
  mcm-report runs/1                       # summary, findings, runs/1/report.html
  mcm-report runs/clean runs/congested runs/mcm --html compare.html
  mcm-report runs/1 --rankfile better.rf && mcmrun --rankfile better.rf ...
)";
}

ReportOptions parse_report_options(const std::vector<std::string>& words) {
  ReportOptions o;
  CLI::App app{"mcm-report"};
  app.set_help_flag();
  app.allow_extras();
  app.add_flag("-h,--help", o.help);
  app.add_flag("--version", o.version);
  app.add_flag("-q,--quiet", o.quiet);
  app.add_flag("--no-html", o.no_html);
  const auto text = [](std::string& into, const char* option) {
    return [&into, option](const std::string& v) {
      if (v.empty()) throw UsageError(std::string(option) + " needs a file name");
      into = v;
    };
  };
  add_read_option(app, "--html", text(o.html, "--html"));
  add_read_option(app, "--json", text(o.json, "--json"));
  add_read_option(app, "--rankfile", text(o.rankfile, "--rankfile"));
  add_read_option(app, "--paths", text(o.paths, "--paths"));
  std::vector<std::string> rest;
  try {
    rest = parse_words(app, words);
  } catch (const mcm::ConfigError& e) {
    throw UsageError(e.what());
  }
  for (const std::string& w : rest) {
    if (w.size() > 1 && w[0] == '-')
      throw UsageError("unknown option '" + w + "' (mcm-report --help lists them)");
    o.directories.push_back(w);
  }
  if (o.help || o.version) return o;
  if (o.directories.empty())
    throw UsageError("no run directory given (mcm-report DIR: a directory of mcmrun --log-dir)");
  if (o.no_html && !o.html.empty()) throw UsageError("--html and --no-html contradict each other");
  return o;
}

}  // namespace mcm::report
