// One daemon of a FakeJob as mcmd's Daemon equips its relay and runtime: its transport,
// event loop, MPI poller, layout and (silent) doorbell. The event loop is never run: tests
// drive the poller with wake(), one poll at a time.
#pragma once

#include <boost/asio/io_context.hpp>
#include <chrono>

#include "mcm/doorbell.h"
#include "plumbing/mpi_poller.h"
#include "support/fake_job.h"

namespace mcm::testing {

struct FakeDaemon {
  FakeDaemon(FakeJob& job, int vm)
      : transport(job.daemon_transport(vm)), layout(job.daemon_layout(vm)) {}

  FakeTransport transport;
  boost::asio::io_context io;
  daemon::MpiPoller poller{io, transport, std::chrono::milliseconds(50)};
  const Layout layout;
  const Doorbell bell;
};

}  // namespace mcm::testing
