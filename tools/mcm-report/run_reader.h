// Reading a run's log directory (mcm/records.h): every rank-N.jsonl and mcmd-vmN.jsonl
// there, merged into one Run.
//
// Contract
//  - A directory that is missing, unreadable or holds no record file throws ReportError
//    with a message that says what was expected there.
//  - What is readable is always reported: a corrupt line, a file cut short (no end
//    record), a record of an unknown kind or a file of a newer schema version is a
//    ReadProblem ("file:line: what"), and reading goes on with the next line or file.
//  - Files of two runs in one directory: the run with the most files is read; each
//    file of another run is named in a problem (its run id), not merged.
//  - `progress` (may be empty) is called with the bytes read so far and the total.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>

#include "run_model.h"

namespace mcm::report {

class ReportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

using Progress = std::function<void(std::uint64_t done, std::uint64_t total)>;

Run read_run(const std::string& directory, const Progress& progress = {});

}  // namespace mcm::report
