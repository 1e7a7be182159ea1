// mcmd's log: one file per daemon in the run's log directory (mcmd-vm<N>.log), as the
// thesis keeps one record file per process; warnings also go to stderr. Without a log
// directory only warnings and errors are written, to stderr.
#pragma once

#include <memory>

#include "plumbing/daemon_options.h"

namespace spdlog {
class logger;
}

namespace mcm::daemon {

std::shared_ptr<spdlog::logger> make_logger(const DaemonOptions& options, int vm);

}  // namespace mcm::daemon
