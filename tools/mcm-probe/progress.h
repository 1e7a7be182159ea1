// The progress display of the probe's rank 0, on stderr (mpirun forwards it): a bar
// redrawn in place on a terminal, one line per step otherwise, nothing when quiet.
#pragma once

#include <chrono>
#include <string>

#include "worker_settings.h"

namespace probe {

class ProgressDisplay {
 public:
  explicit ProgressDisplay(Progress style) : style_(style) {}
  /// Step `done` of `total` of `phase` has finished; `detail` says what it measured.
  void update(const std::string& phase, int done, int total, const std::string& detail);
  /// Ends the bar's line.
  void finish();

 private:
  Progress style_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace probe
