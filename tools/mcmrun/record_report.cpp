#include "record_report.h"

#include <filesystem>
#include <system_error>

#include "mcm/error.h"
#include "mcm/pattern.h"

namespace fs = std::filesystem;

namespace mcmrun {
namespace {

/// pattern.yaml, pattern-rank-N.yaml, or either with .tmp (a write cut short).
bool is_pattern_file(std::string name) {
  const std::string tmp = ".tmp";
  if (name.size() > tmp.size() && name.compare(name.size() - tmp.size(), tmp.size(), tmp) == 0)
    name.resize(name.size() - tmp.size());
  if (name == "pattern.yaml") return true;
  const std::string prefix = "pattern-rank-", suffix = ".yaml";
  if (name.size() <= prefix.size() + suffix.size() || name.rfind(prefix, 0) != 0 ||
      name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
    return false;
  const std::string rank = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
  return rank.find_first_not_of("0123456789") == std::string::npos;
}

bool has_affixes(const std::string& name, const std::string& prefix, const std::string& suffix) {
  return name.size() > prefix.size() + suffix.size() && name.rfind(prefix, 0) == 0 &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// A run record file (mcm/records.h): rank-N.jsonl (N digits) or mcmd-vmN.jsonl.
bool is_record_file(const std::string& name) {
  if (has_affixes(name, "mcmd-", ".jsonl")) return true;
  if (!has_affixes(name, "rank-", ".jsonl")) return false;
  const std::string rank = name.substr(5, name.size() - 5 - 6);
  return rank.find_first_not_of("0123456789") == std::string::npos;
}

}  // namespace

int remove_old_records(const std::string& log_dir) {
  int removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(log_dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code file_ec;
    if (it->is_regular_file(file_ec) &&
        (is_pattern_file(it->path().filename().string()) ||
         is_record_file(it->path().filename().string())) &&
        fs::remove(it->path(), file_ec))
      ++removed;
  }
  return removed;
}

std::string pattern_report(const std::string& log_dir) {
  const std::string path = (fs::path(log_dir) / "pattern.yaml").string();
  std::error_code ec;
  if (!fs::exists(path, ec))
    return "warning: no communication pattern was written (" + path +
           " is missing): the application did not reach MPI_Finalize on every rank, or its "
           "rank 0 ran on a host that does not share the log directory";
  try {
    const mcm::Pattern p = mcm::load_pattern(path);
    std::string sizes;
    for (std::uint64_t s : p.dominant_sizes)
      sizes += (sizes.empty() ? "" : ", ") + std::to_string(s);
    return "communication pattern of " + std::to_string(p.ranks) + " ranks written to " + path +
           " (" + std::to_string(p.total.messages) + " messages; dominant sizes: " + sizes +
           " bytes)";
  } catch (const mcm::ConfigError& e) {
    return std::string("warning: the communication pattern is not usable: ") + e.what();
  }
}

}  // namespace mcmrun
