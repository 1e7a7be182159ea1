#include "plumbing/logging.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace mcm::daemon {

std::shared_ptr<spdlog::logger> make_logger(const DaemonOptions& options, int vm) {
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  auto to_stderr = std::make_shared<spdlog::sinks::stderr_sink_mt>();
  to_stderr->set_level(spdlog::level::warn);
  to_stderr->set_pattern(std::string("mcmd[") + host + "]: %l: %v");
  std::vector<spdlog::sink_ptr> sinks{to_stderr};
  if (!options.log_dir.empty()) {
    const std::string path = options.log_dir + "/mcmd-vm" + std::to_string(vm) + ".log";
    try {
      auto file = std::make_shared<spdlog::sinks::basic_file_sink_mt>(path);
      file->set_pattern("%Y-%m-%dT%H:%M:%S.%f %l %v");
      sinks.push_back(file);
    } catch (const spdlog::spdlog_ex& e) {
      // The daemon still serves the job; only its record is lost, and the user is told.
      std::fprintf(stderr, "mcmd[%s]: warning: cannot write log %s: %s\n", host, path.c_str(),
                   e.what());
    }
  }
  auto log = std::make_shared<spdlog::logger>("mcmd", sinks.begin(), sinks.end());
  log->set_level(spdlog::level::from_str(options.log_level));
  log->flush_on(spdlog::level::warn);
  log->info("mcmd {} on {} (pid {}), mode {}", MCM_VERSION, host, getpid(),
            to_string(options.mode));
  return log;
}

}  // namespace mcm::daemon
