// The engine's estimate of a rank's computation (Engine::outside_mpi_seconds(), the
// records' outside_mpi_s, which mcm-report's late-sender finding compares between ranks):
// the time between the engine's calls counts, the time inside Open MPI's own collectives
// does not, also when the progress hook runs progress rounds during them, and neither does
// the time a wait loop slept between its progress rounds. Real time, in
// tens of milliseconds: the bounds leave more than that to a busy machine.
#include <mpi.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <thread>

#include "engine/engine.h"
#include "mcm/protocol/frames.h"
#include "mcm/protocol/tags.h"
#include "support/fake_job.h"
#include "support/fake_native_mpi.h"

namespace protocol = mcm::protocol;

namespace {

void pause_ms(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

}  // namespace

TEST_CASE("engine: time in Open MPI's own collectives and a wait loop's sleeps is not computation",
          "[engine]") {
  mcm::testing::FakeJob job({1, 1});
  mcm::testing::FakeTransport daemon = job.daemon_transport(0);
  protocol::Envelope initial;  // FrameIO::start waits for the daemon's initial routes
  initial.kind = protocol::kRouteUpdate;
  initial.source = job.daemon(0);
  initial.tag = protocol::kInitialRoutesEnd;
  MPI_Request request;
  daemon.isend(&initial, sizeof initial, 0, protocol::data_tag(0), job.private_comm, &request);
  const mcm::Layout layout = job.rank_layout(0);
  mcm::testing::FakeTransport frames = job.rank_transport(0);
  mcm::testing::FakeNativeMpi mpi(job.rank_transport(0));
  mcm::engine::Engine engine;
  engine.start_on(frames, mpi, layout, 1024, /*adaptive=*/true);

  engine.progress();
  const double at_start = engine.outside_mpi_seconds();
  pause_ms(40);  // computing
  engine.progress();
  const double computed = engine.outside_mpi_seconds() - at_start;
  CHECK(computed >= 0.035);

  engine.native_collective_begin();  // waiting in MPI_Allreduce for a slower rank...
  pause_ms(40);
  engine.progress();  // ...while the progress hook turns the engine
  pause_ms(40);
  engine.native_collective_end();
  engine.progress();
  const double in_collective = engine.outside_mpi_seconds() - at_start - computed;
  CHECK(in_collective < 0.030);

  pause_ms(40);  // computing again
  engine.progress();
  CHECK(engine.outside_mpi_seconds() - at_start - computed - in_collective >= 0.035);

  // A wait loop (wrapper_support.h, Backoff): progress, sleep on the doorbell, progress...
  const double before_wait = engine.outside_mpi_seconds();
  for (int round = 0; round < 4; ++round) {
    pause_ms(10);
    engine.note_waited_in_mpi();
    engine.progress();
  }
  CHECK(engine.outside_mpi_seconds() - before_wait < 0.030);
}
