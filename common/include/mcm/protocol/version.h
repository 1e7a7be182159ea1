// The version of MCM's protocol (mcm/protocol.h): every tag, message and rule between the
// processes of one job. A change that a process of another MCM install could misread
// increments kWireVersion. Processes check it first thing at start-up (mcm/bootstrap.h,
// step 0), so that a job whose hosts run different installs fails there, clearly, instead
// of misreading each other's bytes.
//
// History: 1, the first versioned protocol; 2, the daemons' heartbeats (liveness.h);
// 3, frames carry their sender's native count and never wait for a fence (frames.h rule 10);
// 4, ranks report their receive waits to the source daemons (runtime_messages.h rule 5);
// 5, receive waits say since when (ReceiveWaits::span_us, where 4 had a reserved 0);
// 6, the start-up's exchanges through PMIx and StartupRecord::node (mcm/bootstrap.h). Step 0
// moved with them: a process of version 5 or older in a job of version 6 or newer waits at
// start-up (in its MPI_Allgather) instead of being named; from 6 on, step 0 never changes;
// 7, late reports name the message ahead (LateArrival::t_ahead, bytes_ahead; 64 bytes);
// 8, heartbeats also travel as doorbell letters (liveness.h rule 1a).
#pragma once

#include <cstdint>

// Tests build a second copy of the start-up with another version (-DMCM_WIRE_VERSION=N),
// to meet a skewed install for real (test/system/relay_daemon_test.sh).
#ifndef MCM_WIRE_VERSION
#define MCM_WIRE_VERSION 8
#endif

namespace mcm::protocol {

constexpr std::int32_t kWireVersion = MCM_WIRE_VERSION;
/// "MCM1": what an MCM process sends in step 0, whatever its version.
constexpr std::int32_t kWireMagic = 0x4d434d31;

}  // namespace mcm::protocol
