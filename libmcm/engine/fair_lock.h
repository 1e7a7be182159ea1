// The engine's lock: recursive, and fair (first come, first served).
//
// Why fair: an application thread spinning in MPI_Iprobe or MPI_Test takes and releases
// the engine lock in a tight loop; with an ordinary mutex it re-acquires it before a
// waiting thread wakes, and with MPI_THREAD_MULTIPLE two such threads on two ranks can
// starve each other's partners forever. Tickets hand the lock to waiters in order.
// Why recursive: an error handler the engine raises under the lock may call MPI again.
// Cost: one uncontended std::mutex lock/unlock per acquire and per release.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

namespace mcm::engine {

class FairLock {
 public:
  void lock() {
    const std::thread::id me = std::this_thread::get_id();
    std::unique_lock<std::mutex> guard(mutex_);
    if (depth_ > 0 && owner_ == me) {
      ++depth_;
      return;
    }
    const std::uint64_t ticket = next_ticket_++;
    turn_.wait(guard, [&] { return serving_ == ticket; });
    owner_ = me;
    depth_ = 1;
  }

  /// Takes the lock only if no thread holds it or waits for it (not even this one: a
  /// caller that may run inside an engine call must not re-enter it). Never waits.
  bool try_lock_unowned() {
    std::lock_guard<std::mutex> guard(mutex_);
    if (depth_ > 0 || serving_ != next_ticket_) return false;
    ++next_ticket_;
    owner_ = std::this_thread::get_id();
    depth_ = 1;
    return true;
  }

  void unlock() {
    std::lock_guard<std::mutex> guard(mutex_);
    if (--depth_ > 0) return;
    owner_ = std::thread::id();
    ++serving_;
    turn_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable turn_;
  std::uint64_t next_ticket_ = 0;
  std::uint64_t serving_ = 0;
  std::thread::id owner_;
  int depth_ = 0;
};

}  // namespace mcm::engine
