// Open MPI's progress-loop settings switched for a scope (mcm/progress_scopes.h), read back
// through the same libopen-pal functions the scopes use: switched off inside, restored
// after, nested scopes restore their own, and an EventLoopOn inside a NoEventLoop runs the
// event loop again for its own scope only (every wait in MPI needs it).
#include "mcm/progress_scopes.h"

#include <dlfcn.h>

#include <catch2/catch.hpp>

namespace {

using EventFlagSetter = int (*)(int);
using YieldSetter = bool (*)(bool);

template <typename Setter>
Setter find(const char* name) {
  return reinterpret_cast<Setter>(dlsym(RTLD_DEFAULT, name));
}

/// The event loop's flags now (0: the loop is skipped).
int event_flags() {
  static const auto set = find<EventFlagSetter>("opal_progress_set_event_flag");
  const int now = set(0);
  set(now);
  return now;
}

bool yielding() {
  static const auto set = find<YieldSetter>("opal_progress_set_yield_when_idle");
  const bool now = set(false);
  set(now);
  return now;
}

}  // namespace

TEST_CASE(
    "progress scopes: the event loop is skipped inside NoEventLoop, on again inside "
    "EventLoopOn, restored after each",
    "[common]") {
  REQUIRE(find<EventFlagSetter>("opal_progress_set_event_flag") != nullptr);  // Open MPI
  const int flags = event_flags();
  REQUIRE(flags != 0);  // Open MPI runs its event loop unless told otherwise
  {
    const mcm::NoEventLoop outer;
    CHECK(event_flags() == 0);
    {
      const mcm::EventLoopOn wait;
      CHECK(event_flags() == flags);
      {
        const mcm::NoEventLoop inner;  // a turn inside a wait inside a turn
        CHECK(event_flags() == 0);
      }
      CHECK(event_flags() == flags);
    }
    CHECK(event_flags() == 0);
  }
  CHECK(event_flags() == flags);
  {
    const mcm::EventLoopOn alone;  // no NoEventLoop open: changes nothing
    CHECK(event_flags() == flags);
  }
  CHECK(event_flags() == flags);
}

TEST_CASE("progress scopes: no yield inside NoMpiYield, the job's setting restored after",
          "[common]") {
  static const auto set = find<YieldSetter>("opal_progress_set_yield_when_idle");
  REQUIRE(set != nullptr);
  for (const bool job : {true, false}) {
    const bool before = set(job);
    {
      const mcm::NoMpiYield no_yield;
      CHECK(no_yield.available());
      CHECK(no_yield.was_yielding() == job);
      CHECK_FALSE(yielding());
      {
        const mcm::NoMpiYield nested;
        CHECK_FALSE(nested.was_yielding());
      }
      CHECK_FALSE(yielding());
    }
    CHECK(yielding() == job);
    set(before);
  }
}
