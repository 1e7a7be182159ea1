// mcm-probe: characterises the virtual cluster (options.cpp has the user's view).
// Run by the user it is the front end (front_end.h); run by mpirun with --worker first it
// is one of the measuring ranks (worker.h).
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "front_end.h"
#include "mcm/error.h"
#include "options.h"
#include "worker.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args[0] == "--worker")
    return probe::run_worker(argc, argv, {args.begin() + 1, args.end()});
  try {
    const probe::Options options = probe::parse_options(args);
    if (options.help) {
      std::fputs(probe::help_text(), stdout);
      return 0;
    }
    if (options.version) {
      std::printf("mcm-probe %s\n", MCM_VERSION);
      return 0;
    }
    return probe::run_front_end(options);
  } catch (const probe::UsageError& e) {
    std::fprintf(stderr, "mcm-probe: %s\n", e.what());
    return probe::kExitUsage;
  } catch (const mcm::ConfigError& e) {
    std::fprintf(stderr, "mcm-probe: %s\n", e.what());
    return probe::kExitUsage;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mcm-probe: %s\n", e.what());
    return probe::kExitFailed;
  }
}
