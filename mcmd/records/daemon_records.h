// The daemon's run records (mcm/records.h; docs/records.md): mcmd-vm<N>.jsonl (N: the VM's
// index, as its log mcmd-vm<N>.log) in the run's log directory, written by the runtime
// (modes relay and adaptive).
//
// What only a daemon knows: the clock offsets between VMs, when and why each of its
// pairs switched to a detour and back, how its paths' latency compared with the base
// second by second (path_timeline.h), its late messages with the thesis's t_t against
// t_p (late_tally.h), and moves of its VM by lmcd. Each method writes one record;
// nothing is written per message.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "mcm/records.h"
#include "records/late_tally.h"
#include "records/path_timeline.h"

namespace spdlog {
class logger;
}

namespace mcm::daemon {

class DaemonRecords {
 public:
  /// Opens `dir`/mcmd-vm<vm>.jsonl. A file that cannot be written is logged
  /// (warn) once; the methods then do nothing.
  /// `paths`: the probe table the runtime was given (mcmrun --paths), or empty.
  DaemonRecords(const std::string& dir, int vm, std::vector<std::string> vm_names,
                const std::string& mode, const std::string& paths,
                std::shared_ptr<spdlog::logger> log);

  /// The clock offset (µs) and its uncertainty of every VM against this one's; `when`:
  /// "start" or "end".
  void clock_offsets(double t, const char* when, const std::vector<double>& offset_us,
                     const std::vector<double>& uncertainty_us);
  /// A decision of the selector that changed a pair's path (`kind`: switch, return).
  void path_change(double t, const char* kind, int to_vm, int from_via, int to_via,
                   const std::string& reason);
  void samples(const std::vector<PathSample>& samples);
  void late_paths(const std::vector<LateTally::Path>& paths);
  /// lmcd moved this VM (its libvirt domain) to `to_host`, whose lmcd is `to_lmcd`.
  void migration(double t, const std::string& domain, const std::string& to_host,
                 const std::string& to_lmcd);
  /// The runtime's counters at the end; then the file is closed.
  void summary(double t, nlohmann::json counters);

 private:
  nlohmann::json via_name(int via) const;
  /// Logs (once) that the file cannot be written.
  void check();

  std::vector<std::string> names_;
  std::shared_ptr<spdlog::logger> log_;
  records::Writer out_;
  bool warned_ = false;
};

}  // namespace mcm::daemon
