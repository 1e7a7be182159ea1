#include "intercepted_list.h"

#include <dlfcn.h>

#include <cstddef>
#include <cstdio>
#include <map>

#include "command_line.h"
#include "intercepted.h"

namespace mcmrun {
namespace {

/// What each origin means (libmcm/generator/special.txt), in the order they are listed.
constexpr const char* kOrigins[][2] = {
    {"engine", "point-to-point and completion: MCM's engine carries them"},
    {"collective", "covered blocking collectives: Open MPI's own, or a schedule around a detour"},
    {"generated", "MPI_COMM_WORLD replaced by the application's world, then Open MPI's own"},
    {"constructor", "as generated, and the new communicator registered with the engine"},
    {"hand-written", "start-up, finalisation and attributes of the world (special.txt)"},
    {"not-wrapped", "deliberately left to Open MPI"},
};

}  // namespace

std::string intercepted_text(const std::string& libmcm) {
  // RTLD_LOCAL: nothing of it becomes visible to this process's other lookups.
  void* lib = dlopen(libmcm.c_str(), RTLD_LAZY | RTLD_LOCAL);
  if (lib == nullptr) throw UsageError("cannot load " + libmcm + ": " + dlerror());
  const auto* rows = static_cast<const mcm_intercepted*>(dlsym(lib, "mcm_intercepted_table"));
  const auto* count = static_cast<const std::size_t*>(dlsym(lib, "mcm_intercepted_count"));
  if (rows == nullptr || count == nullptr) {
    dlclose(lib);
    throw UsageError(libmcm +
                     " has no table of intercepted functions (mcm_intercepted_table): "
                     "not MCM's shim, or one of another version");
  }
  std::map<std::string, int> per_origin;
  for (std::size_t i = 0; i < *count; ++i) ++per_origin[rows[i].origin];

  std::string text = "MPI functions in " + libmcm + ": " + std::to_string(*count) + "\n";
  char line[256];
  for (const auto& [origin, meaning] : kOrigins) {
    std::snprintf(line, sizeof line, "  %-12s %4d  %s\n", origin, per_origin[origin], meaning);
    text += line;
  }
  std::snprintf(line, sizeof line, "\n%-28s %-14s %-13s %s\n", "function", "family", "origin",
                "Fortran");
  text += line;
  for (std::size_t i = 0; i < *count; ++i) {
    std::snprintf(line, sizeof line, "%-28s %-14s %-13s %s\n", rows[i].name, rows[i].family,
                  rows[i].origin, rows[i].fortran ? "yes" : "no");
    text += line;
  }
  dlclose(lib);
  return text;
}

}  // namespace mcmrun
