// mcmd: the MCM daemon, one per VM, launched by mcmrun as the last contexts of the job.
//
// All MPI calls here use the PMPI_ names so that a libmcm.so preloaded by mistake into
// the daemon cannot interpose on it.
#include <mpi.h>
#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <exception>
#include <memory>

#include "daemon.h"
#include "mcm/bootstrap.h"
#include "mcm/progress_scopes.h"
#include "mcm/protocol/frames.h"
#include "plumbing/daemon_options.h"
#include "plumbing/logging.h"

namespace {

/// No daemon outlives its job: when our parent (Open MPI's orted) dies, we get SIGTERM.
void die_with_parent() {
  const pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) raise(SIGTERM);  // it died before the line above
}

}  // namespace

int main(int argc, char** argv) {
  mcm::daemon::DaemonOptions options;
  try {
    options = mcm::daemon::parse_options(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mcmd: %s\n", e.what());
    return 2;
  }
  if (options.exit_now) return 0;
  die_with_parent();
  // The poller sleeps for tens of microseconds when busy; the default timer slack (50 µs)
  // would more than double every such sleep.
  prctl(PR_SET_TIMERSLACK, 1000UL);

  PMPI_Init(&argc, &argv);
  mcm::Doorbell doorbell;
  // Best effort: without it, frames wait for a timed poll and probes are dated when read.
  doorbell.open(/*listen=*/true, /*stamped=*/true);
  mcm::Layout layout = mcm::bootstrap(mcm::Role::daemon, doorbell.address());
  doorbell.accept_only(layout.doorbell_of_world_rank);  // rings from the job only
  auto log = mcm::daemon::make_logger(options, layout.vm);
  if (options.topology) {
    const mcm::Topology& t = *options.topology;
    int detoured = 0;
    for (const auto& by_destination : t.alternatives)
      for (const auto& list : by_destination) detoured += !list.empty();
    log->info("path table {}: {} hosts measured {}{}, {} paths with a faster detour",
              options.paths_path, t.hosts.size(), t.date, t.partial ? " (partial)" : "", detoured);
  }

  std::unique_ptr<mcm::daemon::Daemon> daemon;
  try {
    daemon = std::make_unique<mcm::daemon::Daemon>(layout, options, doorbell, log);
  } catch (const std::exception& e) {
    // Bad --route arguments: every daemon fails alike; end the whole job with the reason.
    log->error("{}", e.what());
    log->flush();
    PMPI_Abort(MPI_COMM_WORLD, 2);
  }
  mcm::daemon::Outcome outcome;
  {
    const mcm::NoMpiYield no_yield;  // mcm/progress_scopes.h
    if (!no_yield.available())
      log->info(
          "MPI's yield-when-idle could not be switched off (not Open MPI?): polls may yield the "
          "core");
    else if (no_yield.was_yielding())
      log->debug("Open MPI's yield-when-idle off while the event loop runs");
    outcome = daemon->run();
  }
  if (outcome == mcm::daemon::Outcome::terminated) {
    log->flush();
    std::_Exit(128 + daemon->terminating_signal());
  }
  mcm::release(layout);
  log->info("finalizing");
  log->flush();
  PMPI_Finalize();
  return daemon->lost_frames() ? mcm::protocol::kLostMessagesExitCode : 0;
}
