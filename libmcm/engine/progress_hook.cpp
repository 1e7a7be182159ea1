#include "engine/progress_hook.h"

#include <dlfcn.h>

#include <atomic>
#include <chrono>
#include <cstdint>

#include "engine/engine.h"
#include "mcm/progress_scopes.h"

namespace mcm::engine::progress_hook {

namespace {

using Callback = int (*)();
using Registrar = int (*)(Callback);

Engine* g_engine = nullptr;
Registrar g_unregister = nullptr;
std::atomic<int> g_in_collectives{0};
std::atomic<int> g_flushing{0};               ///< outstanding flushes of this process
std::atomic<bool> g_frames_waiting{false};    ///< frames wait in the lanes
std::atomic<std::int64_t> g_last_turn_ns{0};  ///< steady clock, of the last engine turn
std::atomic<bool> g_side_listening{false};    ///< a side channel is attached
std::atomic<std::int64_t> g_last_side_ns{0};  ///< steady clock, of the last side poll

/// At most one engine turn per interval: each turn's own MPI calls run the progress loop
/// once more, and turning on every call made an 8-byte MPI_Allreduce on 4 VMs take
/// 125-150 µs instead of 95-110 µs. 50 µs is far below what a flush or a frame waits for.
constexpr std::int64_t kTurnIntervalNs = 50'000;
/// Inside a native collective with no flush outstanding and no frame waiting to leave: the
/// engine turns for its peers' sake alone (frames to match, a flush to answer, a note of the
/// agreement), which a millisecond more costs only at a switch. At kTurnIntervalNs every
/// MPI_Barrier paid about one turn: an exchange timed from a barrier's exit (IMB-style, 4
/// VMs, 8 B) took 1.27-1.33x plain's time, 1.04-1.15x at 1 ms.
constexpr std::int64_t kCollectiveTurnIntervalNs = 1'000'000;
/// The side channel alone: its notes wait for a round trip at most, so 1 ms is plenty.
constexpr std::int64_t kSideIntervalNs = 1'000'000;
thread_local bool t_in_hook = false;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

/// Runs `work` (true: something moved) under the engine lock if nobody holds it, marked
/// as the hook's own (the engine's MPI calls turn the progress loop again: without its
/// poll of the sockets, which the loop that called the hook makes right after).
template <typename Work>
int turn(Work work) {
  t_in_hook = true;
  int moved = 0;
  if (g_engine->lock().try_lock_unowned()) {
    const mcm::NoEventLoop no_poll;
    moved = work() ? 1 : 0;
    g_engine->lock().unlock();
  }
  t_in_hook = false;
  return moved;
}

/// Outside the cases below: the side channel's poll, at most once per kSideIntervalNs.
int poll_side() {
  const std::int64_t now = now_ns();
  if (now - g_last_side_ns.load(std::memory_order_relaxed) < kSideIntervalNs) return 0;
  g_last_side_ns.store(now, std::memory_order_relaxed);
  return turn([] { return g_engine->poll_side(); });
}

/// opal_progress_callback_t: returns how many events it handled.
int on_progress() {
  if (t_in_hook) return 0;
  const bool pending = g_flushing.load(std::memory_order_relaxed) != 0 ||
                       g_frames_waiting.load(std::memory_order_relaxed);
  if (!pending && g_in_collectives.load(std::memory_order_relaxed) == 0)
    return g_side_listening.load(std::memory_order_relaxed) ? poll_side() : 0;
  const std::int64_t now = now_ns();
  const std::int64_t interval = pending ? kTurnIntervalNs : kCollectiveTurnIntervalNs;
  if (now - g_last_turn_ns.load(std::memory_order_relaxed) < interval) return 0;
  g_last_turn_ns.store(now, std::memory_order_relaxed);
  return turn([] { return g_engine->progress(); });
}

}  // namespace

bool install(Engine& engine) {
  // int opal_progress_register(opal_progress_callback_t): libopen-pal, Open MPI 3-5.
  auto reg = reinterpret_cast<Registrar>(dlsym(RTLD_DEFAULT, "opal_progress_register"));
  auto unreg = reinterpret_cast<Registrar>(dlsym(RTLD_DEFAULT, "opal_progress_unregister"));
  if (reg == nullptr || unreg == nullptr) return false;
  g_engine = &engine;
  if (reg(on_progress) != 0) return false;  // OPAL_SUCCESS is 0
  g_unregister = unreg;
  return true;
}

void uninstall() {
  if (g_unregister != nullptr) g_unregister(on_progress);
  g_unregister = nullptr;
}

void collective_begin() {
  g_in_collectives.fetch_add(1, std::memory_order_relaxed);
}
void collective_end() {
  g_in_collectives.fetch_sub(1, std::memory_order_relaxed);
}
void flush_begin() {
  g_flushing.fetch_add(1, std::memory_order_relaxed);
}
void flush_end() {
  g_flushing.fetch_sub(1, std::memory_order_relaxed);
}
void set_frames_waiting(bool waiting) {
  g_frames_waiting.store(waiting, std::memory_order_relaxed);
}
void set_side_listening(bool listening) {
  g_side_listening.store(listening, std::memory_order_relaxed);
}

}  // namespace mcm::engine::progress_hook
