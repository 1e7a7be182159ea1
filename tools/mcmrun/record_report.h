// The log directory around the job: mcmrun makes sure the pattern and run record files
// there are the run's own, and in mode record tells the user afterwards where the
// pattern is, or why not.
#pragma once

#include <string>

namespace mcmrun {

/// Before the job: removes pattern.yaml and pattern-rank-N.yaml (and their .tmp), and
/// the run records rank-N.jsonl and mcmd-vmN.jsonl (mcm/records.h) from `log_dir`, left
/// by an earlier run there, so that a run that never reaches MPI_Finalize cannot pass
/// off an old pattern or old records as its own. Other files are untouched.
/// Returns how many files it removed; errors are ignored (the report then says what
/// it finds).
int remove_old_records(const std::string& log_dir);

/// After the job: one line for stderr (without "mcmrun: " and newline) about
/// LOG_DIR/pattern.yaml: "communication pattern of N ranks written to PATH (M messages,
/// dominant sizes: 8, 5600, 16 bytes)", or a warning saying that it is missing (with
/// the likely reasons) or not usable (with the loader's file:line:column message).
std::string pattern_report(const std::string& log_dir);

}  // namespace mcmrun
