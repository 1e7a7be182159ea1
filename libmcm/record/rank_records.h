// The rank's run records (mcm/records.h; docs/records.md): written at MPI_Finalize into
// the run's log directory as rank-<application rank>.jsonl, in every mode (mcmrun sets
// MCM_LOG_DIR with --log-dir). Modes off and record have no engine: their files hold the
// rank's time and what it sent, not its waits.
//
// What a rank knows that no daemon does: what the application sent to each rank and
// received from each rank, how long it waited for each source's messages (t_r > t_rq,
// natives included), and how long it spent outside MPI (computing). Everything is
// counted while the job runs (engine/receive_tally.h, the pattern recorder's tally) and
// written once, at the end: the job pays no I/O.
#pragma once

#include <string>
#include <vector>

#include "mcm/bootstrap.h"
#include "mcm/pattern.h"

namespace mcm::engine {
class Engine;
}

namespace mcm::shim {

/// Writes `dir`/rank-<app rank>.jsonl. `engine`: null when it did not run (modes off,
/// record); `started_at`: when the shim started in MPI_Init (wall seconds); `sent`: the recorder's
/// traffic per application rank (may be empty). A file that cannot be written is
/// reported on stderr.
void write_rank_records(const std::string& dir, const Layout& layout, const char* mode,
                        const engine::Engine* engine, double started_at,
                        const std::vector<Traffic>& sent);

}  // namespace mcm::shim
