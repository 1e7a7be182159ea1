// mcmd's scheduling priority (config `daemon.nice`, default -15).
//
// Why: a VM often runs more processes than it has cores (the ranks plus this daemon), and
// ranks that poll MPI keep the cores busy. At the default priority a daemon woken by a
// doorbell then waited for a core for hundreds of milliseconds at a time; frames stood
// still for seconds (measured with stress_p2p, 8 ranks + 4 daemons on 2 cores). At nice
// -15 it runs ahead of the ranks whenever it wakes; it sleeps the rest of the time, so
// the ranks lose only what the forwarding costs.
//
// Contract: request_priority() is called before PMPI_Init, so that the threads MPI starts
// inherit the value (on Linux the nice value is per thread). Lowering nice needs
// CAP_SYS_NICE or a large enough RLIMIT_NICE; without them the daemon keeps running at its
// current priority (correct, possibly slower) and says so in its log.
#pragma once

#include <string>

namespace mcm::daemon {

/// Sets the calling thread's nice value; returns 0, or the errno of the refusal.
int request_priority(int nice);

/// One line for the log: what request_priority(nice) returned `error` means.
std::string describe_priority(int nice, int error);

}  // namespace mcm::daemon
