#include "mcm/launch/install_paths.h"

#include <algorithm>
#include <filesystem>
#include <vector>

#ifndef MCM_INSTALL_LIBDIR
#define MCM_INSTALL_LIBDIR "lib"
#endif

namespace fs = std::filesystem;

namespace mcm::launch {
namespace {

std::string absolute(const std::string& path, const Environment& env) {
  const fs::path p(path);
  return (p.is_absolute() ? p : fs::path(env.cwd) / p).lexically_normal().string();
}

/// The first executable `name` in $PATH (an empty entry is the working directory).
std::string search_path(const std::string& name, const Environment& env) {
  const std::string path = env.getenv("PATH").value_or("");
  size_t start = 0;
  while (start <= path.size()) {
    const size_t colon = std::min(path.find(':', start), path.size());
    const std::string dir = path.substr(start, colon - start);
    start = colon + 1;
    const std::string candidate = absolute((dir.empty() ? "." : dir) + "/" + name, env);
    if (env.is_executable(candidate)) return candidate;
  }
  return "";
}

/// $variable when set (it must name an existing file), else the first existing candidate.
std::string find_file(const std::string& what, const std::string& variable,
                      const std::vector<std::string>& candidates, const Environment& env) {
  if (const auto value = env.getenv(variable); value && !value->empty()) {
    const std::string path = absolute(*value, env);
    if (!env.is_file(path)) throw NotFound(variable + "='" + *value + "': no such file");
    return path;
  }
  std::string tried;
  for (const std::string& c : candidates) {
    if (env.is_file(c)) return c;
    tried += (tried.empty() ? "" : ", ") + c;
  }
  throw NotFound("cannot find " + what + " (tried " + tried + "; set " + variable + ")");
}

}  // namespace

std::string find_mpirun(const Environment& env) {
  if (const auto value = env.getenv("MCM_MPIRUN"); value && !value->empty()) {
    const std::string path =
        value->find('/') == std::string::npos ? search_path(*value, env) : absolute(*value, env);
    if (path.empty() || !env.is_executable(path))
      throw NotFound("MCM_MPIRUN='" + *value + "' is not an executable file");
    return path;
  }
  std::string path = search_path("mpirun", env);
  if (path.empty()) throw NotFound("mpirun not found in PATH (install Open MPI or set MCM_MPIRUN)");
  return path;
}

Programs find_mcm_files(const std::string& bindir, const Environment& env) {
  const fs::path bin = fs::path(absolute(bindir, env));
  const fs::path prefix = bin.parent_path();
  std::vector<std::string> libs = {(prefix / "lib" / "libmcm.so").lexically_normal().string()};
  const fs::path libdir = fs::path(MCM_INSTALL_LIBDIR).is_absolute() ? fs::path(MCM_INSTALL_LIBDIR)
                                                                     : prefix / MCM_INSTALL_LIBDIR;
  const std::string installed = (libdir / "libmcm.so").lexically_normal().string();
  if (installed != libs[0]) libs.push_back(installed);

  Programs p;
  p.libmcm = find_file("libmcm.so", "MCM_LIBMCM", libs, env);
  p.mcmd = find_file("mcmd", "MCM_MCMD", {(bin / "mcmd").lexically_normal().string()}, env);
  return p;
}

std::string executable_dir() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : self.parent_path().string();
}

}  // namespace mcm::launch
