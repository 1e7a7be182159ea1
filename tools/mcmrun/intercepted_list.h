// `mcmrun --intercepted`: the MPI functions the shim takes over, read from the table that
// libmcm/generator/generate_wrappers.py compiled into libmcm.so (libmcm/intercepted.h),
// so the list is the library's own, not a copy that could drift from it.
#pragma once

#include <string>

namespace mcmrun {

/// The table of the libmcm.so at `libmcm` as text: a summary line per origin, then one
/// line per function (name, family, origin, Fortran entry points). Loads the library
/// without initialising MPI. Throws UsageError naming the file when it cannot be loaded
/// or has no table (not an MCM shim, or another version's).
std::string intercepted_text(const std::string& libmcm);

}  // namespace mcmrun
