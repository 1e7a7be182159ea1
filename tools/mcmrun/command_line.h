// mcmrun's command line: `mcmrun [mcmrun options] [mpirun options] program [args]
// [: [mpirun options] program2 [args] ...]`, split into mcmrun's own settings and the
// application's MPMD contexts. Pure: no file, environment or process is touched.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "mcm/config.h"
#include "mcm/routes.h"

namespace mcmrun {

/// A mistake in what the user asked for. main() prints "mcmrun: " + what() and exits 2
/// without starting anything.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What an mpirun option means to mcmrun; `other` for the ones it only passes through.
enum class Role {
  other,
  np,                // -np N: ranks of this context
  per_node,          // -N, --npernode, --ppr, --pernode...: the rank count depends on the hosts
  host,              // -H/--host LIST
  hostfile,          // --hostfile/--machinefile FILE
  default_hostfile,  // --default-hostfile FILE
  export_env,        // -x VAR[=VALUE]
  map_by,            // --map-by POLICY[:MODIFIERS]
  mca,               // --mca/--gmca NAME VALUE
  oversubscribe,     // --oversubscribe
  no_oversubscribe,  // --nooversubscribe
  hwthread_cpus,     // --use-hwthread-cpus
  app,               // --app FILE (not supported)
  rankfile,          // -rf/--rankfile FILE: mcmrun places the ranks itself (rankfile.h)
};

/// An entry of the table of mpirun options (command_line.cpp).
struct OptionSpec {
  std::string_view name;
  int args;  ///< how many of the following words belong to the option
  Role role;
};

/// The table entry for an Open MPI 4.1 mpirun option spelled `name` ("-np", "--mca"), or
/// nullptr for an option mcmrun does not know (passed on as a flag without argument).
const OptionSpec* find_mpirun_option(std::string_view name);

/// One mpirun option as it will be passed on: `--np=4` arrives here as {"--np", {"4"}}.
struct Option {
  std::string name;
  std::vector<std::string> args;
  Role role = Role::other;

  bool operator==(const Option& o) const {
    return name == o.name && args == o.args && role == o.role;
  }
};

/// One MPMD context: its mpirun options, then the program and its arguments.
struct AppContext {
  std::vector<Option> options;
  std::vector<std::string> program;  ///< program first; never empty after parsing

  /// Every argument of the options with `role`, in order ("-np 2 -np 4" gives {"2","4"}
  /// for Role::np; two-argument options contribute both words).
  std::vector<std::string> values(Role role) const;
  bool has(Role role) const;
};

struct CommandLine {
  std::optional<mcm::Mode> mode;  ///< --mode, when given
  std::optional<std::string> config_file;
  std::optional<std::string> log_dir;
  std::optional<std::string> paths_file;  ///< --paths: mcm-probe's topology file
  std::vector<mcm::RouteSpec> routes;     ///< --route FROM:TO:VIA, in order (resolved later)
  bool dry_run = false;
  bool verbose = false;
  bool help = false;         ///< when set, nothing else is guaranteed to be parsed
  bool version = false;      ///< likewise
  bool intercepted = false;  ///< likewise (--intercepted)
  /// --help, --version or --intercepted: print and exit, nothing else is parsed.
  bool stops_early() const { return help || version || intercepted; }
  std::vector<AppContext> contexts;  ///< the application's contexts, in order
};

/// Parses mcmrun's arguments (argv without argv[0]). mcmrun options are recognised in the
/// first context before the program, in both `--opt value` and `--opt=value` forms; mpirun
/// options that take arguments (the table) keep them, also when written `--opt=value`.
/// Throws UsageError for: an unknown --mode, a missing program or
/// option argument, a bad -np, an mcmrun option after the first context, --app.
CommandLine parse_command_line(const std::vector<std::string>& args);

}  // namespace mcmrun
