// Running mpirun: the only code of mcmrun and mcm-probe's front end that starts processes.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mcm::launch {

/// Runs argv[0] (a path) with `argv` as a child and waits for it. While it runs,
/// SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 sent to mcmrun are forwarded to
/// it, except those the kernel sent to the whole foreground process group (terminal keys,
/// hang-up), which the child has received already: mpirun treats a second SIGINT as
/// "abort now without cleaning up". They are forwarded even if mcmrun started with them
/// ignored (`mcmrun ... &` in a script ignores SIGINT), because mpirun, which installs its
/// own handlers, would react to them; the child starts with the dispositions mcmrun
/// inherited. Returns the status to exit with: the child's exit status, or
/// 128 + N when signal N killed it. The child is always reaped. Throws std::runtime_error
/// if it cannot fork; a failed exec makes the child exit 127 with a message.
int run_and_wait(const std::vector<std::string>& argv);

/// Same, with the child's stdin on /dev/null and its stdout into `stdout_file` (created or
/// truncated, mode 0600): for a caller that reads what the job printed afterwards.
/// Throws std::runtime_error when the file cannot be opened.
int run_and_wait(const std::vector<std::string>& argv, const std::string& stdout_file);

/// Same, with the child's stderr read through a pipe: every line is copied to mcmrun's
/// stderr as it comes, then passed to `on_stderr_line` (without its newline). The child's
/// descendants may keep the pipe open: reading stops once the child has exited and what
/// it left in the pipe has been read.
int run_and_wait(const std::vector<std::string>& argv,
                 const std::function<void(std::string_view line)>& on_stderr_line);

/// Runs `argv` with stdin and stderr on /dev/null and returns what it wrote to stdout, or
/// nullopt if it could not run or exited with a non-zero status.
std::optional<std::string> capture_output(const std::vector<std::string>& argv);

}  // namespace mcm::launch
