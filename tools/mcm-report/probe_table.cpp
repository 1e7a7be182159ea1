#include "probe_table.h"

#include <cmath>
#include <filesystem>

#include "mcm/error.h"
#include "mcm/topology.h"

namespace mcm::report {

std::optional<ProbeTable> load_probe_table(const Run& run, const std::string& file,
                                           std::string* why) {
  const std::string path = file.empty() ? run.paths_file : file;
  if (path.empty()) {
    *why = "the run used no probe table (mcmrun --paths), and none was given (--paths)";
    return std::nullopt;
  }
  std::error_code ec;
  if (file.empty() && !std::filesystem::exists(path, ec)) {
    *why = "the run's probe table " + path + " is no longer there (give it with --paths)";
    return std::nullopt;
  }
  if (run.vm_names.empty()) {
    *why = "the daemons' records are missing: the run's VMs are unknown";
    return std::nullopt;
  }
  try {
    const Topology t = load_topology(path);
    const std::vector<int> index = check_hosts(t, run.vm_names, path);
    const int s = t.size_index(t.reference_size);
    const std::size_t n = run.vm_names.size();
    ProbeTable table;
    table.file = path;
    table.size = t.reference_size;
    table.latency_us.assign(n, std::vector<double>(n, kNotMeasured));
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = 0; b < n; ++b)
        if (a != b && s >= 0)
          table.latency_us[a][b] =
              t.latency_us[static_cast<std::size_t>(s)][static_cast<std::size_t>(index[a])]
                          [static_cast<std::size_t>(index[b])];
    if (t.sensibility) {
      table.sensibility.assign(n, std::vector<double>(n, 0));
      for (std::size_t a = 0; a < n; ++a)
        for (std::size_t b = 0; b < n; ++b)
          table.sensibility[a][b] = (*t.sensibility)[static_cast<std::size_t>(index[a])]
                                                    [static_cast<std::size_t>(index[b])];
    }
    if (!t.beta_bytes_per_us.empty()) {
      table.byte_cost.assign(n, std::vector<double>(n, 0));
      double sum = 0;
      int count = 0;
      for (std::size_t a = 0; a < n; ++a)
        for (std::size_t b = 0; b < n; ++b) {
          if (a == b) continue;
          const double beta = t.beta_bytes_per_us[static_cast<std::size_t>(index[a])]
                                                 [static_cast<std::size_t>(index[b])];
          table.byte_cost[a][b] = beta > 0 && std::isfinite(beta) ? 1 / beta : kNotMeasured;
          if (measured(table.byte_cost[a][b])) sum += table.byte_cost[a][b], ++count;
        }
      const double mean = count > 0 ? sum / count : 1;
      for (auto& row : table.byte_cost)
        for (double& c : row) c = measured(c) ? c / mean : 1;  // unknown: an average path
      for (std::size_t a = 0; a < n; ++a) table.byte_cost[a][a] = 0;
    }
    return table;
  } catch (const ConfigError& e) {
    *why = e.what();
    return std::nullopt;
  }
}

}  // namespace mcm::report
