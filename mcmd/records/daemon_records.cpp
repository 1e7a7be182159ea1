#include "records/daemon_records.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

namespace mcm::daemon {
DaemonRecords::DaemonRecords(const std::string& dir, int vm, std::vector<std::string> vm_names,
                             const std::string& mode, const std::string& paths,
                             std::shared_ptr<spdlog::logger> log)
    : names_(std::move(vm_names)), log_(std::move(log)) {
  const std::string& me = names_[static_cast<size_t>(vm)];
  out_ = records::Writer(dir + "/mcmd-vm" + std::to_string(vm) + ".jsonl",
                         {{"program", "mcmd"},
                          {"host", records::host_name()},
                          {"pid", static_cast<long>(getpid())},
                          {"mode", mode},
                          {"vm", vm},
                          {"vm_name", me},
                          {"vm_names", names_},
                          {"paths", paths}});
  check();
}

void DaemonRecords::check() {
  if (warned_ || out_.error().empty()) return;
  warned_ = true;
  log_->warn("records: cannot write the run records {}; the run goes on without them",
             out_.error());
}

nlohmann::json DaemonRecords::via_name(int via) const {
  if (via < 0 || static_cast<size_t>(via) >= names_.size()) return nullptr;
  return names_[static_cast<size_t>(via)];
}

void DaemonRecords::clock_offsets(double t, const char* when, const std::vector<double>& offset_us,
                                  const std::vector<double>& uncertainty_us) {
  nlohmann::json offsets = nlohmann::json::object(), uncertainty = nlohmann::json::object();
  for (size_t vm = 0; vm < names_.size() && vm < offset_us.size(); ++vm) {
    offsets[names_[vm]] = offset_us[vm];
    if (vm < uncertainty_us.size()) uncertainty[names_[vm]] = uncertainty_us[vm];
  }
  out_.write({{"record", "clock_offsets"},
              {"t", t},
              {"when", when},
              {"offset_us", offsets},
              {"uncertainty_us", uncertainty}});
  check();
}

void DaemonRecords::path_change(double t, const char* kind, int to_vm, int from_via, int to_via,
                                const std::string& reason) {
  out_.write({{"record", "path_change"},
              {"t", t},
              {"kind", kind},
              {"to", names_[static_cast<size_t>(to_vm)]},
              {"from_via", via_name(from_via)},
              {"to_via", via_name(to_via)},
              {"reason", reason}});
  check();
}

void DaemonRecords::samples(const std::vector<PathSample>& samples) {
  for (const PathSample& s : samples)
    out_.write({{"record", "path_sample"},
                {"t", s.t},
                {"to", names_[static_cast<size_t>(s.to_vm)]},
                {"via", via_name(s.via)},
                {"observations", s.observations},
                {"latency_us", s.latency_us},
                {"base_us", s.base_us},
                {"zone", to_string(s.worst)}});
  check();
}

void DaemonRecords::late_paths(const std::vector<LateTally::Path>& paths) {
  const auto q = [](const LateTally::Quantiles& v) {
    return nlohmann::json{{"p50", v.p50}, {"p90", v.p90}, {"max", v.max}};
  };
  for (const LateTally::Path& p : paths)
    out_.write({{"record", "late"},
                {"to", names_[static_cast<size_t>(p.to_vm)]},
                {"via", via_name(p.via)},
                {"messages", p.messages},
                {"bytes", p.bytes},
                {"transit_over_wait", p.transit_over_wait},
                {"transit_us", q(p.transit_us)},
                {"wait_us", q(p.wait_us)}});
  check();
}

void DaemonRecords::migration(double t, const std::string& domain, const std::string& to_host,
                              const std::string& to_lmcd) {
  out_.write({{"record", "migration"},
              {"t", t},
              {"domain", domain},
              {"to_host", to_host},
              {"to_lmcd", to_lmcd}});
  out_.flush();  // a move is rare and worth keeping if the daemon dies later
  check();
}

void DaemonRecords::summary(double t, nlohmann::json counters) {
  counters["record"] = "summary";
  counters["t"] = t;
  out_.write(counters);
  out_.close();
  check();
}

}  // namespace mcm::daemon
