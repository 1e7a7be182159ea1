#include "collectives/schedule_agreement.h"

#include <algorithm>
#include <utility>

namespace mcm::collectives {

void Routes::normalize() {
  for (auto& [a, b] : pairs)
    if (a > b) std::swap(a, b);
  std::sort(pairs.begin(), pairs.end());
  pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
  if (static_cast<int>(pairs.size()) > kMaxPairs) overflow = true;
  if (overflow) pairs.clear();
}

void Note::set(const Routes& routes) {
  pairs = routes.overflow ? -1 : static_cast<std::int32_t>(routes.pairs.size());
  for (std::size_t i = 0; !routes.overflow && i < routes.pairs.size(); ++i) {
    pair[2 * i] = routes.pairs[i].first;
    pair[2 * i + 1] = routes.pairs[i].second;
  }
}

Routes Note::routes() const {
  Routes r;
  r.overflow = pairs < 0 || pairs > Routes::kMaxPairs;
  for (int i = 0; !r.overflow && i < pairs; ++i) r.pairs.push_back({pair[2 * i], pair[2 * i + 1]});
  r.normalize();
  return r;
}

ScheduleAgreement::ScheduleAgreement(int my_world_rank, Send send, Members members)
    : me_(my_world_rank), send_(std::move(send)), members_(std::move(members)) {}

bool ScheduleAgreement::leads(int context) const {
  const std::vector<int>* members = members_(context);
  return members != nullptr && !members->empty() && members->front() == me_;
}

ScheduleAgreement::Entry ScheduleAgreement::enter(int context, const Routes& want) {
  State& s = state(context);
  if (want != s.said) {
    s.said = want;
    if (leads(context)) {
      if (want.detoured()) {
        s.wanting[me_] = want;
      } else {
        s.wanting.erase(me_);
      }
      consider(context, s);
    } else if (const std::vector<int>* members = members_(context)) {
      Note note{Note::report, context, 0, 0, 0, {}};
      note.set(want);
      send_(members->front(), note);
    }
  }
  Entry entry;
  if (s.stopped) return entry;
  entry.ready = true;
  entry.index = s.entered++;
  while (!s.decisions.empty() && s.decisions.front().from <= entry.index) {
    s.mode = std::move(s.decisions.front().routes);
    s.decisions.pop_front();
  }
  entry.routes = &s.mode;
  return entry;
}

void ScheduleAgreement::receive(int from, const Note& note) {
  State& s = state(note.context);
  switch (note.kind) {
    case Note::report: {
      Routes routes = note.routes();
      if (routes.detoured()) {
        s.wanting[from] = std::move(routes);
      } else {
        s.wanting.erase(from);
      }
      consider(note.context, s);
      break;
    }
    case Note::propose:
      s.stopped = true;
      send_(from, Note{Note::answer, note.context, note.round, 0, s.entered, {}});
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
      apply(s, Decision{note.value, note.routes()});
      break;
    default:
      break;  // not ours: ignored (the channel is private; see control_channel.h)
  }
}

Routes ScheduleAgreement::target(const State& s) {
  Routes all;
  for (const auto& [member, routes] : s.wanting) {
    all.overflow = all.overflow || routes.overflow;
    all.pairs.insert(all.pairs.end(), routes.pairs.begin(), routes.pairs.end());
  }
  all.normalize();
  return all;
}

void ScheduleAgreement::consider(int context, State& s) {
  if (s.open) return;  // decide() considers again
  if (target(s) == s.decided) return;
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
  s.proposed = target(s);
  s.answered.clear();
  s.max_entered = s.entered;
  ++s.round;
  for (std::size_t r = 1; r < members.size(); ++r)
    if (s.gone.count(members[r]) == 0)
      send_(members[r], Note{Note::propose, context, s.round, 0, 0, {}});
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
  Note note{Note::decide, context, s.round, 0, d.from, {}};
  note.set(d.routes);
  for (std::size_t r = 1; r < members.size(); ++r)
    if (s.gone.count(members[r]) == 0) send_(members[r], note);
  s.open = false;
  s.decided = d.routes;
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
      send_(members->front(), Note{Note::farewell, context, 0, 0, s.entered, {}});
  }
}

}  // namespace mcm::collectives
