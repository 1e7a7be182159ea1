#include "mcm/progress_scopes.h"

#include <dlfcn.h>

namespace mcm {
namespace {

/// bool opal_progress_set_yield_when_idle(bool): exported by libopen-pal (Open MPI 3-5);
/// returns the previous setting.
using YieldSetter = bool (*)(bool);
/// int opal_progress_set_event_flag(int): exported by libopen-pal (Open MPI 3-5); returns
/// the previous flags (0: the event loop is skipped).
using EventFlagSetter = int (*)(int);

template <typename Setter>
Setter find(const char* name) {
  return reinterpret_cast<Setter>(dlsym(RTLD_DEFAULT, name));
}

YieldSetter yield_setter() {
  static const YieldSetter set = find<YieldSetter>("opal_progress_set_yield_when_idle");
  return set;
}

EventFlagSetter event_flag_setter() {
  static const EventFlagSetter set = find<EventFlagSetter>("opal_progress_set_event_flag");
  return set;
}

/// This thread's open NoEventLoop scopes, and the flags the outermost one found.
thread_local int t_paused = 0;
thread_local int t_flags = 0;

}  // namespace

NoMpiYield::NoMpiYield() {
  if (YieldSetter set = yield_setter()) was_ = set(false);
}

NoMpiYield::~NoMpiYield() {
  if (YieldSetter set = yield_setter()) set(was_);
}

bool NoMpiYield::available() const {
  return yield_setter() != nullptr;
}

NoEventLoop::NoEventLoop() {
  EventFlagSetter set = event_flag_setter();
  if (set == nullptr) return;
  was_ = set(0);
  if (t_paused++ == 0) t_flags = was_;
}

NoEventLoop::~NoEventLoop() {
  EventFlagSetter set = event_flag_setter();
  if (set == nullptr) return;
  set(was_);
  --t_paused;
}

EventLoopOn::EventLoopOn() {
  EventFlagSetter set = event_flag_setter();
  if (set == nullptr || t_paused == 0) return;
  set(t_flags);
  switched_ = true;
}

EventLoopOn::~EventLoopOn() {
  if (switched_) event_flag_setter()(0);
}

}  // namespace mcm
