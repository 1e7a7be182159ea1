#include "run_reader.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "mcm/records.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace mcm::report {
namespace {

enum class Kind { rank, daemon };

struct File {
  fs::path path;
  Kind kind;
  std::uint64_t bytes = 0;
  json header;      ///< null when the first line is no valid header
  std::string run;  ///< the header's run id
};

bool is_record_name(const std::string& name, Kind* kind) {
  const auto ends = [&](const char* s) {
    const std::string suffix(s);
    return name.size() > suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (!ends(".jsonl")) return false;
  if (name.rfind("rank-", 0) == 0 && name.size() > 11) {
    const std::string digits = name.substr(5, name.size() - 11);
    if (digits.find_first_not_of("0123456789") != std::string::npos) return false;
    *kind = Kind::rank;
    return true;
  }
  if (name.rfind("mcmd-", 0) == 0 && name.size() > 11) {
    *kind = Kind::daemon;
    return true;
  }
  return false;
}

double number(const json& j, const char* key, double fallback = 0) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<double>() : fallback;
}
std::uint64_t count(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<std::uint64_t>() : 0;
}
std::string text(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}
int integer(const json& j, const char* key, int fallback = -1) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int>() : fallback;
}

/// The header of `path` (its first line), or null with `why` set.
json read_header(const fs::path& path, std::string* why) {
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) {
    *why = "empty or unreadable";
    return nullptr;
  }
  json h = json::parse(line, nullptr, false);
  if (h.is_discarded() || !h.is_object() || text(h, "record") != "header") {
    *why = "not an MCM run record file (its first line is no record header)";
    return nullptr;
  }
  if (text(h, "schema") != records::kSchema) {
    *why = "schema '" + text(h, "schema") + "', not " + records::kSchema;
    return nullptr;
  }
  if (integer(h, "version", 0) > records::kVersion) {
    *why = "records of version " + std::to_string(integer(h, "version", 0)) +
           ", newer than this mcm-report reads (" + std::to_string(records::kVersion) +
           "): use the mcm-report of the MCM that wrote them";
    return nullptr;
  }
  return h;
}

class Reader {
 public:
  explicit Reader(Run& run) : run_(run) {}

  void read(const File& f, const Progress& progress, std::uint64_t* done, std::uint64_t total) {
    std::ifstream in(f.path);
    std::string line;
    int number_of_line = 0;
    bool ended = false;
    const std::string name = f.path.filename().string();
    vm_ = f.kind == Kind::daemon ? text(f.header, "vm_name") : "";
    rank_ = f.kind == Kind::rank ? integer(f.header, "rank") : -1;
    while (std::getline(in, line)) {
      ++number_of_line;
      *done += line.size() + 1;
      if (progress && number_of_line % 4096 == 0) progress(*done, total);
      if (number_of_line == 1 || line.empty()) continue;
      const json r = json::parse(line, nullptr, false);
      if (r.is_discarded() || !r.is_object()) {
        problem(name, number_of_line,
                in.eof() ? "the last line is cut short (the writer stopped mid-record)"
                         : "not a JSON record: skipped");
        continue;
      }
      const std::string kind = text(r, "record");
      if (kind == "end") {
        ended = true;
        if (count(r, "dropped") > 0)
          problem(name, number_of_line,
                  std::to_string(count(r, "dropped")) +
                      " records were dropped by the writer (its size limit, or a write error)");
        continue;
      }
      if (!take(kind, r)) problem(name, number_of_line, "unknown record '" + kind + "': skipped");
    }
    ++run_.files_read;
    if (!ended) {
      ++run_.files_cut_short;
      problem(name, number_of_line,
              "no end record: the file was cut short (the process died or was killed); the "
              "records before the cut are used");
    }
  }

 private:
  void problem(const std::string& file, int line, const std::string& what) {
    run_.problems.push_back({file + ":" + std::to_string(line), what});
  }

  PairInfo& pair(int from, int to) {
    return run_.pairs[static_cast<size_t>(from)][static_cast<size_t>(to)];
  }
  bool valid_rank(int r) const { return r >= 0 && r < run_.rank_count; }

  bool take(const std::string& kind, const json& r) {
    const double t = number(r, "t", run_.t0) - run_.t0;
    if (kind == "rank" && valid_rank(rank_)) {
      RankInfo& info = run_.ranks[static_cast<size_t>(rank_)];
      info.wall_s = number(r, "wall_s");
      info.outside_mpi_s = number(r, "outside_mpi_s");
      info.engine = r.contains("outside_mpi_s");
      info.detoured_messages = count(r, "detoured_messages");
      return true;
    }
    if (kind == "sent" && valid_rank(rank_)) {
      const int to = integer(r, "to");
      if (!valid_rank(to)) return true;
      PairInfo& p = pair(rank_, to);
      p.messages = count(r, "messages");
      p.bytes = count(r, "bytes");
      return true;
    }
    if (kind == "received" && valid_rank(rank_)) {
      const int from = integer(r, "from");
      if (!valid_rank(from)) return true;
      PairInfo& p = pair(from, rank_);
      p.received = count(r, "messages");
      p.waited = count(r, "waited");
      p.wait_s = number(r, "wait_s");
      p.wait_max_s = number(r, "wait_max_s");
      if (r.contains("wait_histogram") && r["wait_histogram"].is_array())
        for (const json& v : r["wait_histogram"])
          p.wait_histogram.push_back(v.is_number() ? v.get<std::uint64_t>() : 0);
      return true;
    }
    if (kind == "path_change") {
      run_.changes.push_back({t, vm_, text(r, "to"), text(r, "kind"), text(r, "from_via"),
                              text(r, "to_via"), text(r, "reason")});
      return true;
    }
    if (kind == "path_sample") {
      run_.samples[{vm_, text(r, "to")}].push_back(
          {t, text(r, "via"), integer(r, "observations", 0), number(r, "latency_us"),
           number(r, "base_us"), text(r, "zone")});
      return true;
    }
    if (kind == "late") {
      const json transit = r.value("transit_us", json::object());
      const json wait = r.value("wait_us", json::object());
      run_.late.push_back({vm_, text(r, "to"), text(r, "via"), count(r, "messages"),
                           count(r, "bytes"), count(r, "transit_over_wait"), number(transit, "p50"),
                           number(wait, "p50")});
      return true;
    }
    if (kind == "migration") {
      run_.migrations.push_back({t, vm_, text(r, "domain"), text(r, "to_host")});
      return true;
    }
    if (kind == "summary") {
      auto& counters = run_.daemon_counters[vm_];
      for (const auto& [key, value] : r.items())
        if (value.is_number()) counters[key] = value.get<double>();
      return true;
    }
    return kind == "clock_offsets" || kind == "rank" || kind == "sent" || kind == "received";
  }

  Run& run_;
  std::string vm_;
  int rank_ = -1;
};

}  // namespace

double Run::wall_s() const {
  double longest = 0;
  for (const RankInfo& r : ranks)
    if (r.present) longest = std::max(longest, r.wall_s);
  return longest;
}

std::string Run::vm_name(int vm) const {
  if (vm >= 0 && static_cast<size_t>(vm) < vm_names.size() &&
      !vm_names[static_cast<size_t>(vm)].empty())
    return vm_names[static_cast<size_t>(vm)];
  return vm < 0 ? "?" : "VM " + std::to_string(vm);
}

Run read_run(const std::string& directory, const Progress& progress) {
  std::error_code ec;
  if (!fs::exists(directory, ec)) throw ReportError(directory + ": no such directory");
  if (!fs::is_directory(directory, ec)) throw ReportError(directory + ": not a directory");
  Run run;
  run.directory = directory;
  std::vector<File> files;
  for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
    Kind kind;
    if (!it->is_regular_file() || !is_record_name(it->path().filename().string(), &kind)) continue;
    File f{it->path(), kind, static_cast<std::uint64_t>(it->file_size()), nullptr, ""};
    std::string why;
    f.header = read_header(f.path, &why);
    if (f.header.is_null()) {
      run.problems.push_back({f.path.filename().string() + ":1", why + ": left out"});
      continue;
    }
    f.run = text(f.header, "run");
    files.push_back(std::move(f));
  }
  if (ec) throw ReportError(directory + ": cannot be read: " + ec.message());
  if (files.empty()) {
    std::string unreadable;
    for (const ReadProblem& p : run.problems) unreadable += "\n  " + p.where + ": " + p.what;
    throw ReportError(directory +
                      ": no MCM run records (rank-N.jsonl, mcmd-vmN.jsonl); mcmrun "
                      "--log-dir DIR writes them" +
                      (unreadable.empty() ? "" : "; what is there:" + unreadable));
  }
  // The run with the most files is this directory's; the others are named, not merged.
  std::map<std::string, int> per_run;
  for (const File& f : files) ++per_run[f.run];
  run.id = std::max_element(per_run.begin(), per_run.end(), [](const auto& a, const auto& b) {
             return a.second < b.second;
           })->first;
  std::vector<File> mine;
  for (File& f : files) {
    if (f.run == run.id) {
      mine.push_back(std::move(f));
      continue;
    }
    run.problems.push_back({f.path.filename().string() + ":1",
                            "a record of another run (" + f.run + ", not " + run.id +
                                "): left out; move each run's files into a directory of its own"});
  }
  std::sort(mine.begin(), mine.end(), [](const File& a, const File& b) { return a.path < b.path; });
  run.t0 = number(mine.front().header, "t");
  for (const File& f : mine) {
    run.t0 = std::min(run.t0, number(f.header, "t", run.t0));
    if (run.mode.empty()) run.mode = text(f.header, "mode");
    if (f.kind == Kind::rank)
      run.rank_count = std::max(
          {run.rank_count, integer(f.header, "ranks", 0), integer(f.header, "rank", -1) + 1});
    if (f.kind == Kind::daemon && f.header.contains("vm_names") &&
        f.header["vm_names"].is_array()) {
      std::vector<std::string> names;
      for (const json& n : f.header["vm_names"])
        names.push_back(n.is_string() ? n.get<std::string>() : "");
      if (names.size() > run.vm_names.size()) run.vm_names = names;
    }
    if (f.kind == Kind::daemon && run.paths_file.empty()) run.paths_file = text(f.header, "paths");
  }
  run.ranks.assign(static_cast<size_t>(run.rank_count), RankInfo{});
  run.pairs.assign(static_cast<size_t>(run.rank_count),
                   std::vector<PairInfo>(static_cast<size_t>(run.rank_count)));
  for (const File& f : mine) {
    if (f.kind != Kind::rank) continue;
    const int r = integer(f.header, "rank");
    if (r < 0 || r >= run.rank_count) continue;
    RankInfo& info = run.ranks[static_cast<size_t>(r)];
    info.present = true;
    info.vm = integer(f.header, "vm");
  }
  std::uint64_t total = 0, done = 0;
  for (const File& f : mine) total += f.bytes;
  Reader reader(run);
  for (const File& f : mine) reader.read(f, progress, &done, total);
  if (progress) progress(total, total);
  for (int r = 0; r < run.rank_count; ++r)
    if (!run.ranks[static_cast<size_t>(r)].present)
      run.problems.push_back({"rank-" + std::to_string(r) + ".jsonl",
                              "missing: rank " + std::to_string(r) +
                                  "'s figures are unknown (it did not reach MPI_Finalize, or "
                                  "its host does not share the log directory)"});
  return run;
}

}  // namespace mcm::report
