// What a daemon tells its host's lmcd about its VM's incoming paths (control::IncomingReport,
// docs/lmcd.md): built from what the other daemons last said about their paths to this VM
// (runtime/incoming_path.h). Pure: unit-tested in test/unit/mcmd_incoming_report_test.cpp.
//
// Per source VM:
//   zone       high while the source judges its direct path to this VM congested; low
//              when it judges it healthy; unknown when it said nothing yet or its last
//              word is older than `max_age_s`.
//   detoured   the source sends to this VM through a third VM;
//   detour_helped  ...and no leg of that detour is congested (so the congestion was that
//              one link's, which detours solve: lmcd leaves it to the runtime).
//   excess_us  the direct path's recent excess (the least of the source's 5 newest
//              observations; 0 when unknown), base_us the table's base.
#pragma once

#include <string>
#include <vector>

#include "mcm/control/messages.h"
#include "runtime/incoming_path.h"

namespace mcm::daemon {

control::IncomingReport incoming_report(const std::string& domain,
                                        const std::vector<IncomingPath>& paths,
                                        const std::vector<std::string>& vm_names, double window_s,
                                        double max_age_s);

/// What a change of report means (the zones and whether a detour helped, per source): a
/// report is sent as soon as this differs from the last one sent.
std::string report_signature(const control::IncomingReport& report);

}  // namespace mcm::daemon
