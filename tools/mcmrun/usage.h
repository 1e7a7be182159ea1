// mcmrun's --help and --version texts.
#pragma once

#include <string>

namespace mcmrun {

/// The full --help text.
const char* help_text();

/// "mcmrun (MCM) <version>" followed by the first line of `mpirun_version_output` (the
/// output of `mpirun --version`) and `mpirun`'s path, or a note when mpirun was not found
/// (both arguments empty).
std::string version_text(const std::string& mpirun, const std::string& mpirun_version_output);

}  // namespace mcmrun
