#include "usage.h"

#ifndef MCM_VERSION
#define MCM_VERSION "unknown"
#endif

namespace mcmrun {

const char* help_text() {
  return R"(Usage: mcmrun [mcmrun options] [mpirun options] program [args]
              [: [mpirun options] program2 [args] ...]

Runs an MPI application under MCM: one Open MPI job made of the application's
ranks, with libmcm.so preloaded, plus one mcmd daemon per host of the
allocation. The application sees the same ranks, MPI_COMM_WORLD and
MPI_APPNUM as under plain mpirun, and mcmrun exits with mpirun's status.

mcmrun options (before the first program; --opt=value works too):
  --mode MODE      off, record, relay or adaptive (default: the config file's
                   mode, else off):
                     off     every MPI call passes through (for comparison)
                     record  pass-through, plus the application's pattern
                             of point-to-point messages (per pair of ranks and
                             per size) in pattern-rank-N.yaml and the merged
                             pattern.yaml of the log directory (default
                             ./mcm-record); mcm-probe --pattern takes its
                             message sizes from pattern.yaml
                     relay   messages between VMs travel through the daemons,
                             which move a congested pair of VMs to a detour
                             (with --paths) and back once it is healthy
                     adaptive  messages between VMs go straight from rank to
                             rank while their path is healthy, and through
                             the daemons (and a detour) only while it is
                             congested: the mode for production runs
  --config FILE    MCM's YAML configuration. It is checked before anything
                   starts and given to every rank and daemon.
  --log-dir DIR    where the run's records go (rank-N.jsonl, mcmd-vmN.jsonl and
                   the daemons' logs; mcm-report DIR reads them); created if
                   missing, an earlier run's records there removed. Relative to
                   the working directory (to the config file's directory when
                   it comes from the config). Every host writes to it at the
                   same path: use a shared file system for a single directory.
  --paths TOPO     the table `mcm-probe` wrote for this allocation (topo.yaml):
                   validated before anything starts, refused when it was
                   measured on other hosts, handed to every mcmd. Its hosts
                   may be written otherwise than the hostfile's (name, FQDN,
                   IP address): they are matched by name, address or short
                   name. Without it, relay and adaptive count late messages
                   but detect no congestion (mcmrun says so).
  --route FROM:TO:VIA
                   relay mode: send the traffic from VM FROM to VM TO through
                   VM VIA. A VM is a host name as written in the hostfile or
                   --host, or its 0-based index there. Repeatable; adds to the
                   config file's routes.
  --dry-run        print the mpirun command line and exit without running it
  -v, --verbose    print the mpirun command line on stderr, then run it
  -h, --help       print this help and exit
  -V, --version    print the versions of mcmrun and Open MPI and exit
  --intercepted    list the MPI functions libmcm.so takes over (from the
                   library's own table: family, how, Fortran) and exit

All other options go to mpirun unchanged (see mpirun --help): -np N,
--hostfile FILE, --host a,b, --map-by ..., -x VAR=VALUE, --mca NAME VALUE...
  - Daemons go on the hosts of --hostfile (or --machinefile), else of the
    --host lists; with neither, one daemon runs on this machine.
  - mcmrun adds --oversubscribe because each daemon takes a slot, but, like
    mpirun, refuses more ranks than slots unless you pass --oversubscribe.
  - -x VAR reaches the daemons too (library paths, MCA settings), and
    -x LD_PRELOAD=LIB the ranks only, preloaded after libmcm.so.
  - mpirun's own -v, -h and -V are mcmrun's here; --app files are not supported.
  - -rf/--rankfile FILE (Open MPI's "rank R=HOST slot=S" lines, e.g. from
    mcm-report --rankfile) places rank R on HOST, a host of the hostfile; every
    rank needs a line. The slots are not bound to cores (the daemons share the
    VMs' cores); the ranks are mapped with --map-by seq, the daemons as always.
  - libmcm.so and mcmd are used at the same absolute path on every host.

Examples:
  mcmrun -np 4 ./solver input.dat
  mcmrun --hostfile hosts.txt -np 16 --log-dir runs/1 ./solver input.dat
  mcmrun --mode record --hostfile hosts.txt -np 16 ./solver input.dat
  mcm-probe --hostfile hosts.txt --out topo.yaml
  mcmrun --mode adaptive --paths topo.yaml --hostfile hosts.txt -np 16 ./solver
  mcmrun --config mcm.yaml --host vm1:2,vm2:2 -np 4 ./a.out
  mcmrun -np 1 ./master : -np 8 ./worker
  mcmrun --dry-run --hostfile hosts.txt -np 6 ./a.out
  mcm-report runs/1 --rankfile better.rf
  mcmrun --hostfile hosts.txt --rankfile better.rf -np 16 ./solver

Environment:
  MCM_MPIRUN   the mpirun to use (a path, or a name looked up in PATH);
               default: mpirun from PATH
  MCM_LIBMCM   libmcm.so to preload (default: ../lib next to mcmrun's bin/)
  MCM_MCMD     mcmd to start (default: next to mcmrun)

Exit status: mpirun's; 128+N when mpirun died of signal N; 2 for a usage or
configuration error (then nothing was started).
)";
}

std::string version_text(const std::string& mpirun, const std::string& mpirun_version_output) {
  std::string text = "mcmrun (MCM) " MCM_VERSION "\n";
  if (mpirun.empty()) return text + "mpirun: not found\n";
  const std::string first_line = mpirun_version_output.substr(0, mpirun_version_output.find('\n'));
  if (first_line.empty()) return text + mpirun + ": version unknown\n";
  return text + first_line + " (" + mpirun + ")\n";
}

}  // namespace mcmrun
