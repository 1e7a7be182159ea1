// From a parsed command line to the one MPMD mpirun job MCM runs:
//
//   mpirun <first context's options> --oversubscribe
//          env LD_PRELOAD=<libmcm.so>[:<user's>] MCM_MODE=<mode>
//              [OMPI_MCA_mpi_yield_when_idle=0 (below)] [MCM_CHUNK_BYTES=N]
//              [MCM_STALL_WARNING_S=N (not the default)] [MCM_LOG_DIR=..] <program> <args>
//        [ : <options> env LD_PRELOAD=... <program2> <args> ... ]
//        : -np 1 --host <h1>:<slots> <mcmd> --mode <mode> [--log-dir D] [--config F]
//              [--chunk-bytes N --buffer-bytes N [--route FROM:TO:VIA]... [--paths T]]
//              --vm-name <name of h1>
//        : -np 1 --host <h2>:<slots> <mcmd> ...          (one context per host)
//
// The daemon of the i-th host is VM i (its rank among the daemons, see bootstrap.h), which
// is how route names are resolved to indices. Frame settings and routes are only passed
// in the modes that use frames (relay, adaptive). --vm-name is the name the daemons know
// the host by in logs and in the path table: the table's spelling of it with --paths
// (mcm::check_hosts matched it by name, address or short name), else the hostfile's;
// without a host list (a job on this machine) no --vm-name is given and the daemon takes
// MPI_Get_processor_name().
//
// The daemons come last, so the application's ranks, MPI_APPNUM and
// OMPI_COMM_WORLD_RANK are exactly those of plain mpirun. A daemon's --host repeats the
// host's slot count (`h:*` when mpirun counts cores) because Open MPI 4.1 lets the last
// context's --host redefine a host's slots. --oversubscribe is needed for the daemons'
// extra slots; check_slots() keeps mpirun's refusal when the application alone would
// oversubscribe. Those extra slots also make Open MPI have every rank yield the CPU in
// each turn of its progress loop, as on an oversubscribed host. In modes off and record
// (the daemons only watch), where the ranks alone fit the slots (a known -np within a
// known slot count, mapped by slot, node, core or socket) and the user did not choose
// (--mca/-x/environment mpi_yield_when_idle), the ranks get
// OMPI_MCA_mpi_yield_when_idle=0, Open MPI's own choice for them under plain mpirun. Not
// in modes relay and adaptive, whose daemons need the cores as soon as they wake.
//
// Everything here is pure except through the injected Environment.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "command_line.h"
#include "mcm/config.h"
#include "mcm/hostfile.h"
#include "mcm/launch/environment.h"
#include "mcm/launch/install_paths.h"

namespace mcmrun {

/// The hosts of the job as far as mcmrun can tell before mpirun runs.
struct Allocation {
  mcm::HostList hosts;  ///< empty: this machine (or a resource manager's nodes) only
  int slots = -1;       ///< total slots, -1 when unknown
  std::vector<std::string> warnings;
};

/// The hosts of --hostfile/--machinefile (all files, in order), else of --default-hostfile,
/// else of every context's --host lists (first appearance order), else this machine with
/// env.local_slots(). Throws mcm::ConfigError for an unreadable or malformed hostfile or a
/// bad --host list.
Allocation find_allocation(const CommandLine& cl, const mcm::launch::Environment& env);

/// The application's ranks when the command line fixes them (every context has an -np
/// and none a per-node count), else nullopt: mpirun decides.
std::optional<long> application_ranks(const CommandLine& cl);

/// Throws UsageError "not enough slots: R ranks requested but the allocation has S slots
/// (use --oversubscribe to allow it)" when the user did not allow oversubscription
/// (--oversubscribe, --map-by ...:OVERSUBSCRIBE, rmaps_base_oversubscribe), every context
/// has an -np, the slots are known, and the ranks exceed them. Returns warnings.
std::vector<std::string> check_slots(const CommandLine& cl, const Allocation& alloc,
                                     const mcm::launch::Environment& env);

/// Where mode record writes the pattern when neither --log-dir nor the config names a
/// log directory (relative to the working directory).
inline constexpr const char* kDefaultRecordDir = "mcm-record";

/// mcmrun's settings after merging the command line over the config file.
struct Settings {
  mcm::Mode mode = mcm::Mode::off;
  std::string log_dir;  ///< absolute, or empty
  /// --rankfile: the sequential hostfile of the ranks' hosts (rankfile.h), absolute; the
  /// application contexts are mapped with it (--map-by seq) instead of their own
  /// hostfile, host and mapping options. Empty: no rankfile.
  std::string seq_hostfile;
  /// The run's id in its records (MCM_RUN_ID, mcm/records.h); set by mcmrun when it has
  /// a log directory, empty: not passed.
  std::string run_id;
  bool log_dir_defaulted = false;  ///< log_dir is kDefaultRecordDir: nobody asked for one
  std::string config_file;         ///< absolute, or empty
  std::string paths_file;          ///< --paths, absolute, or empty
  mcm::RelayConfig relay;          ///< the config's relay: section, defaults without one
  mcm::LivenessConfig liveness;    ///< likewise, liveness:
  std::vector<mcm::Route> routes;  ///< resolved by resolve_routes()
  /// Per host of the allocation, the daemon's --vm-name (vm_names(): the path table's
  /// spelling of the host, else the hostfile's); empty without a host list.
  std::vector<std::string> vm_names;
};

/// The daemons' names of the allocation's hosts: `table_names[i]` for host i when a path
/// table was matched (table_names not empty), else the hosts as the allocation wrote them.
std::vector<std::string> vm_names(const Allocation& alloc,
                                  const std::vector<std::string>& table_names);

/// Whether `mode` moves point-to-point traffic as frames (frames.h): relay and adaptive.
bool uses_frames(mcm::Mode mode);

/// The command line wins over the config (`config` may be null). A relative log_dir from
/// the config file is relative to the file's directory; from the command line, to `cwd`.
/// Mode record always has a log directory: kDefaultRecordDir in `cwd` when none is given.
Settings resolve_settings(const CommandLine& cl, const mcm::Config* config, const std::string& cwd);

/// The config file's routes (`config` may be null), then those of --route, resolved
/// against the allocation's hosts (VM i is the i-th host). Throws mcm::ConfigError, e.g.
/// "--route vm9:vm2:vm3: unknown VM 'vm9' (the allocation has vm1, vm2, vm3, vm4)", and
/// UsageError when routes are given but mcmrun does not know the hosts.
std::vector<mcm::Route> resolve_routes(const CommandLine& cl, const mcm::Config* config,
                                       const Allocation& alloc);

/// The complete mpirun argv (argv[0] = programs.mpirun), as described at the top.
std::vector<std::string> build_mpirun_argv(const CommandLine& cl, const Allocation& alloc,
                                           const Settings& settings,
                                           const mcm::launch::Programs& programs,
                                           const mcm::launch::Environment& env);

/// `word` quoted for a POSIX shell, unchanged when it needs no quoting.
std::string shell_quote(std::string_view word);
/// The argv as one shell command line.
std::string shell_join(const std::vector<std::string>& argv);

}  // namespace mcmrun
