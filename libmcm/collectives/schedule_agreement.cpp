#include "collectives/schedule_agreement.h"

#include <algorithm>
#include <utility>

namespace mcm::collectives {

ScheduleAgreement::ScheduleAgreement(int my_world_rank, Send send, Members members)
    : me_(my_world_rank), send_(std::move(send)), members_(std::move(members)) {}

bool ScheduleAgreement::leads(int context) const {
  const std::vector<int>* members = members_(context);
  return members != nullptr && !members->empty() && members->front() == me_;
}

ScheduleAgreement::Entry ScheduleAgreement::enter(int context, bool want) {
  State& s = state(context);
  if (want != s.said_want) {
    s.said_want = want;
    if (leads(context)) {
      if (want) {
        s.wanting.insert(me_);
      } else {
        s.wanting.erase(me_);
      }
      consider(context, s);
    } else if (const std::vector<int>* members = members_(context)) {
      send_(members->front(), Note{Note::report, context, 0, 0, want ? 1 : 0});
    }
  }
  Entry entry;
  if (s.stopped) return entry;
  entry.ready = true;
  entry.index = s.entered++;
  while (!s.decisions.empty() && s.decisions.front().from <= entry.index) {
    s.mode = s.decisions.front().detoured;
    s.decisions.pop_front();
  }
  entry.detoured = s.mode;
  return entry;
}

void ScheduleAgreement::receive(int from, const Note& note) {
  State& s = state(note.context);
  switch (note.kind) {
    case Note::report:
      if (note.value != 0) {
        s.wanting.insert(from);
      } else {
        s.wanting.erase(from);
      }
      consider(note.context, s);
      break;
    case Note::propose:
      s.stopped = true;
      send_(from, Note{Note::answer, note.context, note.round, 0, s.entered});
      break;
    case Note::answer:
      if (s.open && note.round == s.round) answered(note.context, s, from, note.value);
      break;
    case Note::farewell:
      s.gone[from] = note.value;
      s.wanting.erase(from);
      if (s.open) {
        answered(note.context, s, from, note.value);
      } else {
        consider(note.context, s);
      }
      break;
    case Note::decide:
      apply(s, Decision{note.value, note.detoured != 0});
      break;
    default:
      break;  // not ours: ignored (the channel is private; see control_channel.h)
  }
}

void ScheduleAgreement::consider(int context, State& s) {
  if (s.open) return;  // decide() considers again
  const bool target = !s.wanting.empty();
  if (target == s.decided) return;
  const std::vector<int>* members = members_(context);
  if (members == nullptr || members->empty()) {  // retry() opens it once known
    s.waiting_members = any_waiting_ = true;
    return;
  }
  if (members->front() != me_) return;  // a stale note: not this process's to lead
  s.waiting_members = false;
  open_round(context, s, *members);
}

void ScheduleAgreement::open_round(int context, State& s, const std::vector<int>& members) {
  ++rounds_led_;
  s.open = s.stopped = true;
  s.proposed = !s.wanting.empty();
  s.answered.clear();
  s.max_entered = s.entered;
  ++s.round;
  for (std::size_t r = 1; r < members.size(); ++r)
    if (s.gone.count(members[r]) == 0)
      send_(members[r], Note{Note::propose, context, s.round, s.proposed ? 1 : 0, 0});
  for (const auto& [member, entered] : s.gone) {
    s.answered.insert(member);
    s.max_entered = std::max(s.max_entered, entered);
  }
  if (s.answered.size() + 1 >= members.size()) decide(context, s, members);
}

void ScheduleAgreement::answered(int context, State& s, int from, long long entered) {
  s.answered.insert(from);
  s.max_entered = std::max(s.max_entered, entered);
  if (const std::vector<int>* members = members_(context))
    if (s.answered.size() + 1 >= members->size()) decide(context, s, *members);
}

void ScheduleAgreement::decide(int context, State& s, const std::vector<int>& members) {
  ++decisions_;
  const Decision d{s.max_entered, s.proposed};
  for (std::size_t r = 1; r < members.size(); ++r)
    if (s.gone.count(members[r]) == 0)
      send_(members[r], Note{Note::decide, context, s.round, d.detoured ? 1 : 0, d.from});
  s.open = false;
  s.decided = d.detoured;
  apply(s, d);
  consider(context, s);  // wants that changed during the round
}

void ScheduleAgreement::apply(State& s, const Decision& d) {
  s.decisions.push_back(d);
  s.stopped = false;
}

void ScheduleAgreement::retry() {
  if (!any_waiting_) return;
  any_waiting_ = false;
  for (auto& [context, s] : states_)
    if (s.waiting_members) consider(context, s);
}

void ScheduleAgreement::forget(int context) {
  states_.erase(context);
}

void ScheduleAgreement::farewell() {
  for (const auto& [context, s] : states_) {
    const std::vector<int>* members = members_(context);
    if (members != nullptr && !members->empty() && members->front() != me_)
      send_(members->front(), Note{Note::farewell, context, 0, 0, s.entered});
  }
}

}  // namespace mcm::collectives
