// Fortran handles for MPI_Message (fortran_bridge.h). Open MPI numbers its own messages
// in a table of its own (PMPI_Message_c2f/f2c), but the engine's messages are pointers to
// the engine's Message objects, unknown to Open MPI: they are numbered here, from
// MCM_F_MESSAGE_BASE upwards (Open MPI's indices are small, so the ranges cannot meet),
// reusing the numbers of received messages. A C handle is the engine's when the engine
// says it owns it (C -> Fortran); a Fortran handle is ours when it is in our range
// (Fortran -> C).
//
// Locking: the table has its own mutex, never held while taking the engine's lock.
#include <mpi.h>

#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "engine/engine.h"
#include "fortran/fortran_bridge.h"

namespace {

class MessageTable {
 public:
  /// Whether Fortran handle `f` is one of ours; then *c is its C handle.
  bool find(MPI_Fint f, MPI_Message* c) {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::size_t slot = slot_of(f);
    if (slot >= slots_.size() || slots_[slot] == MPI_MESSAGE_NULL) return false;
    *c = slots_[slot];
    return true;
  }

  /// The Fortran handle of the engine's message `c` (the same one while it lives).
  MPI_Fint number(MPI_Message c) {
    std::lock_guard<std::mutex> lock(mutex_);
    const auto it = by_c_.find(c);
    if (it != by_c_.end()) return it->second;
    std::size_t slot;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
      slots_[slot] = c;
    } else {
      slot = slots_.size();
      slots_.push_back(c);
    }
    const MPI_Fint f = static_cast<MPI_Fint>(static_cast<std::size_t>(MCM_F_MESSAGE_BASE) + slot);
    by_c_.emplace(c, f);
    return f;
  }

  void release(MPI_Fint f) {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::size_t slot = slot_of(f);
    if (slot >= slots_.size() || slots_[slot] == MPI_MESSAGE_NULL) return;
    by_c_.erase(slots_[slot]);
    slots_[slot] = MPI_MESSAGE_NULL;
    free_.push_back(slot);
  }

  static bool in_range(MPI_Fint f) { return f >= MCM_F_MESSAGE_BASE; }

 private:
  static std::size_t slot_of(MPI_Fint f) {
    return in_range(f) ? static_cast<std::size_t>(f - MCM_F_MESSAGE_BASE) : SIZE_MAX;
  }

  std::mutex mutex_;
  std::vector<MPI_Message> slots_;  ///< MPI_MESSAGE_NULL: free
  std::vector<std::size_t> free_;
  std::unordered_map<MPI_Message, MPI_Fint> by_c_;
};

MessageTable& table() {
  static MessageTable* t = new MessageTable;  // never destroyed: usable until exit
  return *t;
}

bool engine_owns(MPI_Message c) {
  if (c == MPI_MESSAGE_NULL || c == MPI_MESSAGE_NO_PROC) return false;
  auto& engine = mcm::engine::Engine::instance();
  std::lock_guard<mcm::engine::FairLock> lock(engine.lock());
  return engine.owns(c);
}

}  // namespace

extern "C" {

MPI_Message mcm_message_f2c(MPI_Fint f) {
  MPI_Message c = MPI_MESSAGE_NULL;
  if (MessageTable::in_range(f) && table().find(f, &c)) return c;
  return PMPI_Message_f2c(f);
}

MPI_Fint mcm_message_c2f(MPI_Message c) {
  return engine_owns(c) ? table().number(c) : PMPI_Message_c2f(c);
}

MPI_Fint mcm_message_back(MPI_Fint before_f, MPI_Message before_c, MPI_Message after) {
  if (after == before_c) return before_f;
  if (MessageTable::in_range(before_f)) table().release(before_f);
  return mcm_message_c2f(after);
}

}  // extern "C"
