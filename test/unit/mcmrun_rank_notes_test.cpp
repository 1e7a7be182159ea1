// mcmrun's notes on mpirun's messages (tools/mcmrun/rank_notes.h): a world rank that is a
// daemon is named as its VM's daemon, once; application ranks are left alone.
#include <catch2/catch.hpp>

#include "rank_notes.h"

TEST_CASE("rank notes: a daemon's world rank in mpirun's messages is named", "[mcmrun]") {
  mcmrun::RankNotes notes(8, {"vm1", "vm2.example.org", "10.0.0.3", "vm4"});
  CHECK(notes.note("mpirun noticed that process rank 9 with PID 20375 on node vm2 exited on "
                   "signal 9 (Killed).") ==
        "mcmrun: world rank 9 is not an application rank: it is mcmd, the MCM daemon of "
        "vm2.example.org");
  CHECK_FALSE(notes.note("process rank 9 again"));  // once per rank
  CHECK(notes.note("MPI_ABORT was invoked on rank 10 in communicator MPI_COMM_WORLD") ==
        "mcmrun: world rank 10 is not an application rank: it is mcmd, the MCM daemon of "
        "10.0.0.3");
  CHECK(notes.note("  Process name: [[33377,1],11]") ==
        "mcmrun: world rank 11 is not an application rank: it is mcmd, the MCM daemon of vm4");
  CHECK_FALSE(notes.note("mpirun noticed that process rank 3 with PID 1 on node vm2 exited"));
  CHECK_FALSE(notes.note("process rank 12"));  // beyond the job
  CHECK_FALSE(notes.note("rank 9 of an unrelated line"));
  CHECK_FALSE(notes.needs_legend());
  CHECK(notes.legend() ==
        "mcmrun: world ranks 0-7 are the application's; world ranks 8-11 are MCM's daemons "
        "(mcmd) of vm1, vm2.example.org, 10.0.0.3, vm4");
}

TEST_CASE("rank notes: without the application's size, a legend instead", "[mcmrun]") {
  mcmrun::RankNotes notes(std::nullopt, {"a", "b"});
  CHECK_FALSE(notes.note("nothing here"));
  CHECK_FALSE(notes.needs_legend());
  CHECK_FALSE(notes.note("mpirun noticed that process rank 5 with PID 1 on node b exited"));
  CHECK(notes.needs_legend());
  CHECK(notes.legend() ==
        "mcmrun: the last 2 world ranks are MCM's daemons (mcmd) of a, b, in that order");
  mcmrun::RankNotes local(4, {});
  CHECK(local.note("process rank 4 with PID") ==
        "mcmrun: world rank 4 is not an application rank: it is mcmd, the MCM daemon of this "
        "machine");
}
