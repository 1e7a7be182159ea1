// What a rank checks of every frame against the job before its engine acts on it
// (libmcm/engine/frame_checks.h): a made-up job of 2 VMs, application ranks 0-1 on VM 0
// and 2-3 on VM 1, daemons 4 (VM 0) and 5 (VM 1); the checking rank is world rank 1.
#include "engine/frame_checks.h"

#include <catch2/catch.hpp>

using mcm::engine::FrameChecks;
using namespace mcm::protocol;

namespace {

mcm::Layout job() {
  mcm::Layout l;
  l.world_rank = 1;
  l.world_size = 6;
  l.vm = 0;
  l.local_daemon = 4;
  l.daemon_count = 2;
  l.vm_of_world_rank = {0, 0, 1, 1, 0, 1};
  l.daemon_of_vm = {4, 5};
  l.world_rank_of_app_rank = {0, 1, 2, 3};
  return l;
}

Envelope data_from(int source) {
  Envelope e;
  e.kind = kData;
  e.source = source;
  e.destination = 1;
  e.message_bytes = 100;
  e.chunk_bytes = 100;
  return e;
}

}  // namespace

TEST_CASE("frame checks: a data frame from a rank, directly or by any daemon, is taken") {
  const FrameChecks checks(job());
  CHECK(checks.check(data_from(0), 0).empty());  // same VM, directly
  CHECK(checks.check(data_from(2), 4).empty());  // through this VM's daemon
  CHECK(checks.check(data_from(2), 5).empty());  // a direct detour's daemon
  Envelope via = data_from(3);
  via.via = 1;
  CHECK(checks.check(via, 5).empty());
  Envelope ack = data_from(2);
  ack.kind = kMatchAck;
  ack.message_bytes = ack.chunk_bytes = 0;
  CHECK(checks.check(ack, 4).empty());
}

TEST_CASE("frame checks: fields that would index the job's tables or name the wrong peer") {
  const FrameChecks checks(job());
  Envelope e = data_from(2);
  e.destination = 3;
  CHECK(checks.check(e, 4).find("for world rank 3, not this one") != std::string::npos);
  for (int source : {-1, 4, 6, 1 << 30}) {
    e = data_from(source);
    CHECK(checks.check(e, 4).find("is no application rank") != std::string::npos);
  }
  e = data_from(2);  // handed on by rank 3, which is not its sender and not a daemon
  CHECK(checks.check(e, 3).find("neither it nor a daemon") != std::string::npos);
  e.via = 2;  // the job has VMs 0 and 1
  CHECK(checks.check(e, 4).find("via VM 2") != std::string::npos);
  e = data_from(2);
  e.message_bytes = FrameChecks::kDefaultMaxMessageBytes + 1;
  CHECK(checks.check(e, 4).find("above the") != std::string::npos);
  const FrameChecks small(job(), 1000);
  e.message_bytes = 1001;
  CHECK_FALSE(small.check(e, 4).empty());
  e.message_bytes = 1000;
  CHECK(small.check(e, 4).empty());
}

TEST_CASE("frame checks: route updates only from this rank's own daemon, for a VM of the job") {
  const FrameChecks checks(job());
  Envelope u;
  u.kind = kRouteUpdate;
  u.tag = 1;
  u.via = 0;
  CHECK(checks.check(u, 4).empty());
  u.tag = kInitialRoutesEnd;
  CHECK(checks.check(u, 4).empty());
  u.tag = 1;
  CHECK(checks.check(u, 5).find("not from this rank's own daemon") != std::string::npos);
  CHECK_FALSE(checks.check(u, 0).empty());  // nor from a rank
  u.tag = 2;
  CHECK(checks.check(u, 4).find("for VM 2") != std::string::npos);
  u.tag = -2;
  CHECK_FALSE(checks.check(u, 4).empty());
}
