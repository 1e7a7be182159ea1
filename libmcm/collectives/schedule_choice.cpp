#include "collectives/schedule_choice.h"

#include <optional>
#include <unordered_map>
#include <vector>

#include "collectives/control_channel.h"
#include "collectives/schedule_agreement.h"
#include "collectives/schedules.h"
#include "engine/engine.h"
#include "wrappers/wrapper_support.h"

namespace mcm::collectives {
namespace {

using engine::Context;
using engine::Engine;
using Lock = std::lock_guard<engine::FairLock>;

struct Shadow {
  MPI_Comm of = MPI_COMM_NULL;  ///< the application's communicator
  MPI_Comm comm = MPI_COMM_NULL;
};

/// A communicator's want (schedule_agreement.h step 2), recomputed when routes changed,
/// and the pairs its shadow's schedules were last told to avoid.
struct Want {
  std::uint64_t routes = ~0ull;  ///< Engine::Counters::route_updates when computed
  Routes want;
  std::optional<Routes> applied;  ///< given to avoid() for the shadow
};

struct Choice {
  const mcm::Layout* layout = nullptr;
  ControlChannel channel;
  std::optional<ScheduleAgreement> agreement;
  std::unordered_map<int, Shadow> shadows;  ///< by context id
  std::unordered_map<int, Want> wants;      ///< by context id
  int keyval = MPI_KEYVAL_INVALID;          ///< on the application's communicator
  ScheduleCounters counters;
};

Choice& choice() {
  static Choice c;
  return c;
}

/// The VM of every rank of `c` (-1: unknown).
std::vector<int> vms_of(const Context& c) {
  const std::vector<int>& vm_of = choice().layout->vm_of_world_rank;
  std::vector<int> vms;
  for (int world : c.world_of_peer)
    vms.push_back(world >= 0 && static_cast<std::size_t>(world) < vm_of.size()
                      ? vm_of[static_cast<std::size_t>(world)]
                      : -1);
  return vms;
}

/// The pairs (this VM, a VM of c's) whose path this rank's engine sends through the daemons.
const Routes& detoured_pairs_seen(const Context& c) {
  Choice& ch = choice();
  Engine& engine = Engine::instance();
  Want& w = ch.wants[c.id];
  if (w.routes == engine.counters().route_updates) return w.want;
  w.routes = engine.counters().route_updates;
  w.want = Routes();
  const int mine = ch.layout->vm;
  for (int vm : vms_of(c))
    if (vm >= 0 && vm != mine && engine.through_daemons(vm)) w.want.pairs.push_back({mine, vm});
  w.want.normalize();
  return w.want;
}

/// The communicator is freed (or MPI finalizes): its shadow goes with it.
int free_shadow(MPI_Comm, int, void* value, void*) {
  const int id = static_cast<int>(reinterpret_cast<std::intptr_t>(value));
  Choice& ch = choice();
  MPI_Comm shadow = MPI_COMM_NULL;
  {
    Lock lock(Engine::instance().lock());
    const auto it = ch.shadows.find(id);
    if (it != ch.shadows.end()) shadow = it->second.comm;
    ch.shadows.erase(id);
    ch.wants.erase(id);
    if (ch.agreement) ch.agreement->forget(id);
  }
  if (shadow != MPI_COMM_NULL) {
    forget(shadow);           // its orders
    PMPI_Comm_free(&shadow);  // its context leaves the engine
  }
  return MPI_SUCCESS;
}

/// The shadow of `comm` (context `id`): made now by every rank (the first detoured call).
MPI_Comm shadow_of(MPI_Comm comm, int id) {
  Choice& ch = choice();
  Engine& engine = Engine::instance();
  {
    Lock lock(engine.lock());
    const auto it = ch.shadows.find(id);
    if (it != ch.shadows.end()) return it->second.comm;
  }
  MPI_Comm shadow = MPI_COMM_NULL;
  // A split, not MPI_Comm_dup: the application's attributes (and their copy callbacks),
  // topology and info stay with its communicator. The same group, in the same order.
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  if (PMPI_Comm_split(comm, 0, rank, &shadow) != MPI_SUCCESS) return MPI_COMM_NULL;
  PMPI_Comm_set_errhandler(shadow, MPI_ERRORS_RETURN);  // raised on comm by the wrapper
  engine.contexts().register_new(shadow);  // collective over the shadow, without the lock
  PMPI_Comm_set_attr(comm, ch.keyval, reinterpret_cast<void*>(static_cast<std::intptr_t>(id)));
  Lock lock(engine.lock());
  ch.shadows[id] = Shadow{comm, shadow};
  return shadow;
}

}  // namespace

void start(const mcm::Layout& layout) {
  Choice& ch = choice();
  Engine& engine = Engine::instance();
  ch.layout = &layout;
  ch.counters = ScheduleCounters();
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &free_shadow, &ch.keyval, nullptr);
  Lock lock(engine.lock());
  ch.agreement.emplace(
      layout.world_rank, [&ch](int to, const Note& note) { ch.channel.send(to, note); },
      [&engine](int id) -> const std::vector<int>* {
        const Context* c = engine.contexts().find(id);
        return c != nullptr && !c->inter ? &c->world_of_peer : nullptr;
      });
  ch.channel.start(layout.role_comm, layout.world_rank_of_app_rank,
                   [&ch](int from, const Note& note) {
                     ch.agreement->receive(from, note);
                     ch.agreement->retry();
                   });
  engine.attach(&ch.channel);
}

void stop() {
  Choice& ch = choice();
  if (!ch.agreement) return;
  Engine& engine = Engine::instance();
  std::vector<MPI_Comm> with_shadows;
  {
    Lock lock(engine.lock());
    ch.agreement->farewell();
    for (const auto& [id, s] : ch.shadows) with_shadows.push_back(s.of);
  }
  for (MPI_Comm c : with_shadows) PMPI_Comm_delete_attr(c, ch.keyval);  // free_shadow()
  PMPI_Comm_free_keyval(&ch.keyval);
  Lock lock(engine.lock());
  engine.attach(nullptr);
  ch.channel.stop();
  ch.counters.rounds_led = ch.agreement->rounds_led();
  ch.agreement.reset();
  ch.wants.clear();
}

MPI_Comm schedule_for(MPI_Comm comm) {
  Choice& ch = choice();
  Engine& engine = Engine::instance();
  int id = -1;
  bool changed = false;  // the agreed pairs differ from those the shadow's orders avoid
  Routes routes;
  std::vector<int> vms;
  for (shim::Backoff backoff;;) {
    {
      Lock lock(engine.lock());
      if (!ch.agreement) return MPI_COMM_NULL;
      const Context* c = engine.contexts().find(comm);
      if (c == nullptr || c->inter || c->peer_count() < 2) return MPI_COMM_NULL;
      id = c->id;
      const ScheduleAgreement::Entry entry = ch.agreement->enter(id, detoured_pairs_seen(*c));
      if (entry.ready) {
        if (!entry.routes->detoured()) return MPI_COMM_NULL;
        ++ch.counters.detoured_calls;
        const Want& w = ch.wants[id];
        changed = !w.applied || *w.applied != *entry.routes;
        if (changed) {
          routes = *entry.routes;
          vms = vms_of(*c);
        }
        break;
      }
      // Stopped for a round: answer and listen while waiting (schedule_agreement.h).
      if (engine.blocking()) {
        engine.block();
        continue;
      }
      if (engine.progress()) backoff.moved();
    }
    backoff.idle();
  }
  const MPI_Comm shadow = shadow_of(comm, id);
  if (shadow == MPI_COMM_NULL || !changed) return shadow;
  // The pairs changed: the shadow's orders follow (the same on every rank: the same pairs,
  // from the same call on).
  avoid(shadow, std::move(vms), routes.pairs);  // overflow: no pairs, rank order
  Lock lock(engine.lock());
  ch.wants[id].applied = routes;
  return shadow;
}

ScheduleCounters schedule_counters() {
  Choice& ch = choice();
  ScheduleCounters counters = ch.counters;
  if (ch.agreement) counters.rounds_led = ch.agreement->rounds_led();
  return counters;
}

}  // namespace mcm::collectives
