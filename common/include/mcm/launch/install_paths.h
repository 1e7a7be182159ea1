// Where mcmrun and mcm-probe find the programs they put into a job. All paths it returns
// are absolute: they are used on every host of the job, so MCM must be installed (or the
// build tree shared) at the same path everywhere.
#pragma once

#include <stdexcept>
#include <string>

#include "mcm/launch/environment.h"

namespace mcm::launch {

/// A program or file the job needs is not where the environment says, or nowhere it was
/// looked for. what() is ready to print after the program's name.
class NotFound : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Programs {
  std::string mpirun;  ///< Open MPI's launcher
  std::string libmcm;  ///< the shim preloaded into every application rank
  std::string mcmd;    ///< the per-host daemon
};

/// $MCM_MPIRUN (a path, or a name looked up in PATH) or `mpirun` from PATH. Throws
/// NotFound "mpirun not found in PATH (install Open MPI or set MCM_MPIRUN)" or, for a
/// bad override, "MCM_MPIRUN='x' is not an executable file".
std::string find_mpirun(const Environment& env);

/// libmcm.so and mcmd belonging to the mcmrun in `bindir`: $MCM_LIBMCM / $MCM_MCMD when
/// set, else `bindir/mcmd` and libmcm.so in `bindir/../lib` or `bindir/../<libdir>`
/// (CMAKE_INSTALL_LIBDIR, for installs such as /usr/lib/x86_64-linux-gnu). The build tree
/// has the same layout (build/bin, build/lib). Throws NotFound naming every path tried.
/// Fills libmcm and mcmd only.
Programs find_mcm_files(const std::string& bindir, const Environment& env);

/// The directory of the running executable, from /proc/self/exe; "" if unreadable.
std::string executable_dir();

}  // namespace mcm::launch
