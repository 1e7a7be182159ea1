// What a loader of MCM's files (config, topology, pattern) says about bad input.
#pragma once

#include <string>

#include "mcm/error.h"

/// The message of the mcm::ConfigError that `load()` throws, or "(no error)".
template <class Load>
std::string config_error_of(Load load) {
  try {
    load();
  } catch (const mcm::ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}
