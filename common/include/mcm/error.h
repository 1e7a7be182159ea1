// The exception MCM throws for mistakes in what the user gave it at start-up.
#pragma once

#include <stdexcept>

namespace mcm {

/// A problem in a file or option the user supplied (config file, hostfile, --host list),
/// found at start-up. what() is complete and ready to print after the program's name:
/// it starts with the location when there is one ("mcm.yaml:4:3: ...",
/// "hosts.txt:3: ...").
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace mcm
