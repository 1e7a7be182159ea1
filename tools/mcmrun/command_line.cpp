#include "command_line.h"

#include <algorithm>
#include <cstdlib>

#include "mcm/error.h"
#include "mcm/whole_integer.h"

namespace mcmrun {
namespace {

// Open MPI 4.1's mpirun options that take arguments (from `mpirun --help all` and its
// categories), plus the argument-less ones mcmrun must recognise. Anything else starting
// with '-' is passed on as a flag without argument.
// clang-format off
constexpr OptionSpec kMpirunOptions[] = {
    // How many ranks.
    {"-np", 1, Role::np}, {"--np", 1, Role::np}, {"-n", 1, Role::np}, {"--n", 1, Role::np},
    {"-c", 1, Role::np},
    {"-N", 1, Role::per_node}, {"-npernode", 1, Role::per_node},
    {"--npernode", 1, Role::per_node}, {"-npersocket", 1, Role::per_node},
    {"--npersocket", 1, Role::per_node}, {"-ppr", 1, Role::per_node},
    {"--ppr", 1, Role::per_node}, {"-pernode", 0, Role::per_node},
    {"--pernode", 0, Role::per_node},
    // Where.
    {"-H", 1, Role::host}, {"-host", 1, Role::host}, {"--host", 1, Role::host},
    {"-hostfile", 1, Role::hostfile}, {"--hostfile", 1, Role::hostfile},
    {"-machinefile", 1, Role::hostfile}, {"--machinefile", 1, Role::hostfile},
    {"-default-hostfile", 1, Role::default_hostfile},
    {"--default-hostfile", 1, Role::default_hostfile},
    {"-rf", 1, Role::rankfile}, {"--rankfile", 1, Role::rankfile},
    {"-rankfile", 1, Role::rankfile},
    // Mapping, ranking, binding.
    {"-map-by", 1, Role::map_by}, {"--map-by", 1, Role::map_by},
    {"-rank-by", 1, Role::other}, {"--rank-by", 1, Role::other},
    {"-bind-to", 1, Role::other}, {"--bind-to", 1, Role::other},
    {"-cpus-per-proc", 1, Role::other}, {"--cpus-per-proc", 1, Role::other},
    {"-cpus-per-rank", 1, Role::other}, {"--cpus-per-rank", 1, Role::other},
    {"-cpu-set", 1, Role::other}, {"--cpu-set", 1, Role::other},
    {"-cpu-list", 1, Role::other}, {"--cpu-list", 1, Role::other},
    {"-oversubscribe", 0, Role::oversubscribe}, {"--oversubscribe", 0, Role::oversubscribe},
    {"-nooversubscribe", 0, Role::no_oversubscribe},
    {"--nooversubscribe", 0, Role::no_oversubscribe},
    {"-use-hwthread-cpus", 0, Role::hwthread_cpus}, {"--use-hwthread-cpus", 0, Role::hwthread_cpus},
    {"-report-bindings", 0, Role::other}, {"--report-bindings", 0, Role::other},
    {"-display-map", 0, Role::other}, {"--display-map", 0, Role::other},
    // Environment and MCA parameters.
    {"-x", 1, Role::export_env},
    {"-mca", 2, Role::mca}, {"--mca", 2, Role::mca}, {"-gmca", 2, Role::mca},
    {"--gmca", 2, Role::mca},
    {"-am", 1, Role::other}, {"--am", 1, Role::other}, {"-tune", 1, Role::other},
    {"--tune", 1, Role::other},
    // Files, directories, launch.
    {"-app", 1, Role::app}, {"--app", 1, Role::app},
    {"-wdir", 1, Role::other}, {"--wdir", 1, Role::other}, {"-wd", 1, Role::other},
    {"--wd", 1, Role::other}, {"-path", 1, Role::other}, {"--path", 1, Role::other},
    {"-prefix", 1, Role::other}, {"--prefix", 1, Role::other},
    {"-preload-files", 1, Role::other}, {"--preload-files", 1, Role::other},
    {"-launch-agent", 1, Role::other}, {"--launch-agent", 1, Role::other},
    {"-personality", 1, Role::other}, {"--personality", 1, Role::other},
    {"-max-vm-size", 1, Role::other}, {"--max-vm-size", 1, Role::other},
    {"-max-restarts", 1, Role::other}, {"--max-restarts", 1, Role::other},
    {"-cf", 1, Role::other}, {"--cartofile", 1, Role::other},
    {"-hnp", 1, Role::other}, {"--hnp", 1, Role::other},
    {"-ompi-server", 1, Role::other}, {"--ompi-server", 1, Role::other},
    {"-timeout", 1, Role::other}, {"--timeout", 1, Role::other},
    // Input, output, debugging.
    {"-stdin", 1, Role::other}, {"--stdin", 1, Role::other},
    {"-output-filename", 1, Role::other}, {"--output-filename", 1, Role::other},
    {"-xml-file", 1, Role::other}, {"--xml-file", 1, Role::other},
    {"-xterm", 1, Role::other}, {"--xterm", 1, Role::other},
    {"-debugger", 1, Role::other}, {"--debugger", 1, Role::other},
    {"-report-events", 1, Role::other}, {"--report-events", 1, Role::other},
    {"-report-pid", 1, Role::other}, {"--report-pid", 1, Role::other},
    {"-report-uri", 1, Role::other}, {"--report-uri", 1, Role::other},
    {"-xml", 0, Role::other}, {"--xml", 0, Role::other},
    {"-tag-output", 0, Role::other}, {"--tag-output", 0, Role::other},
};
// clang-format on

/// mcmrun's own options.
enum class Own {
  mode,
  config,
  log_dir,
  paths,
  route,
  dry_run,
  verbose,
  help,
  version,
  intercepted
};

struct OwnSpec {
  std::string_view name;
  bool takes_value;
  Own option;
};

constexpr OwnSpec kOwnOptions[] = {
    {"--mode", true, Own::mode},
    {"--config", true, Own::config},
    {"--log-dir", true, Own::log_dir},
    {"--route", true, Own::route},
    {"--paths", true, Own::paths},
    {"--dry-run", false, Own::dry_run},
    {"-v", false, Own::verbose},
    {"--verbose", false, Own::verbose},
    {"-h", false, Own::help},
    {"--help", false, Own::help},
    {"-V", false, Own::version},
    {"--version", false, Own::version},
    {"--intercepted", false, Own::intercepted},
};

// The modes this release implements; the others are refused before anything starts.

const OwnSpec* find_own_option(std::string_view name) {
  for (const OwnSpec& s : kOwnOptions)
    if (s.name == name) return &s;
  return nullptr;
}

bool is_positive_integer(std::string_view text) {
  const std::optional<int> n = mcm::whole_integer<int>(text);
  return n && *n > 0;
}

/// Walks the arguments once, context by context.
class Parser {
 public:
  explicit Parser(const std::vector<std::string>& args) : args_(args) {}

  CommandLine run() {
    for (i_ = 0; i_ < args_.size() && !result_.stops_early(); ++i_) {
      const std::string& arg = args_[i_];
      if (arg == ":") {
        end_context();
      } else if (!context_.program.empty()) {
        context_.program.push_back(arg);
      } else if (arg.size() > 1 && arg[0] == '-') {
        option(arg);
      } else {
        context_.program.push_back(arg);
      }
    }
    if (result_.stops_early()) return std::move(result_);
    if (context_.program.empty()) {
      if (result_.contexts.empty()) throw UsageError("no program to run (see mcmrun --help)");
      throw UsageError("no program after the last ':'");
    }
    result_.contexts.push_back(std::move(context_));
    return std::move(result_);
  }

 private:
  void end_context() {
    if (context_.program.empty())
      throw UsageError(result_.contexts.empty() && context_.options.empty()
                           ? "no program to run (see mcmrun --help)"
                           : "no program before ':'");
    result_.contexts.push_back(std::move(context_));
    context_ = AppContext{};
  }

  /// The word after the current one, as the argument of `name`.
  std::string next_argument(const std::string& name, int count) {
    if (i_ + 1 >= args_.size() || args_[i_ + 1] == ":")
      throw UsageError(
          "option " + name + " needs " +
          (count == 1 ? std::string("an argument") : std::to_string(count) + " arguments"));
    return args_[++i_];
  }

  void option(const std::string& arg) {
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    std::optional<std::string> inline_value;
    if (eq != std::string::npos) inline_value = arg.substr(eq + 1);

    if (const OwnSpec* own = find_own_option(name)) {
      if (!result_.contexts.empty())
        throw UsageError(name + " is an mcmrun option: give it before the first program");
      if (!own->takes_value && inline_value) throw UsageError(name + " takes no value");
      std::string value;
      if (own->takes_value) value = inline_value ? *inline_value : next_argument(name, 1);
      if (own->takes_value && value.empty()) throw UsageError(name + " needs a non-empty value");
      apply(own->option, name, value);
      return;
    }

    const OptionSpec* spec = find_mpirun_option(name);
    if (spec == nullptr || (spec->args == 0 && inline_value)) {
      context_.options.push_back(Option{arg, {}, Role::other});  // unknown: a plain flag
      return;
    }
    Option opt{name, {}, spec->role};
    if (inline_value) opt.args.push_back(*inline_value);
    while (static_cast<int>(opt.args.size()) < spec->args)
      opt.args.push_back(next_argument(name, spec->args));
    if (opt.role == Role::np && !is_positive_integer(opt.args[0]))
      throw UsageError(name + " needs a positive number of processes, got '" + opt.args[0] + "'");
    if (opt.role == Role::app)
      throw UsageError(name +
                       " appfiles are not supported: give the contexts on the command line, "
                       "separated by ':'");
    context_.options.push_back(std::move(opt));
  }

  void apply(Own option, const std::string& name, const std::string& value) {
    switch (option) {
      case Own::mode:
        result_.mode = mcm::parse_mode(value);
        if (!result_.mode)
          throw UsageError("unknown " + name + " '" + value +
                           "' (expected off, record, relay or adaptive)");
        break;
      case Own::config:
        result_.config_file = value;
        break;
      case Own::log_dir:
        result_.log_dir = value;
        break;
      case Own::paths:
        result_.paths_file = value;
        break;
      case Own::route:
        try {
          result_.routes.push_back(mcm::parse_route_option(value, name));
        } catch (const mcm::ConfigError& e) {
          throw UsageError(e.what());
        }
        break;
      case Own::dry_run:
        result_.dry_run = true;
        break;
      case Own::verbose:
        result_.verbose = true;
        break;
      case Own::help:
        result_.help = true;
        break;
      case Own::version:
        result_.version = true;
        break;
      case Own::intercepted:
        result_.intercepted = true;
        break;
    }
  }

  const std::vector<std::string>& args_;
  size_t i_ = 0;
  CommandLine result_;
  AppContext context_;
};

}  // namespace

const OptionSpec* find_mpirun_option(std::string_view name) {
  for (const OptionSpec& s : kMpirunOptions)
    if (s.name == name) return &s;
  return nullptr;
}

std::vector<std::string> AppContext::values(Role role) const {
  std::vector<std::string> out;
  for (const Option& o : options)
    if (o.role == role) out.insert(out.end(), o.args.begin(), o.args.end());
  return out;
}

bool AppContext::has(Role role) const {
  return std::any_of(options.begin(), options.end(),
                     [&](const Option& o) { return o.role == role; });
}

CommandLine parse_command_line(const std::vector<std::string>& args) {
  return Parser(args).run();
}

}  // namespace mcmrun
