#include "engine/context_ids.h"

#include <limits>

namespace mcm::engine {

int ContextIds::next(const std::function<bool(int)>& alive) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
  // A whole sequence of live ids cannot happen (each is a communicator of this process),
  // but the loop is bounded anyway by one pass over the sequence.
  const std::int64_t period = (kMax - kFirst - rank_) / size_ + 1;
  for (std::int64_t tries = 0; tries < period; ++tries) {
    if (kFirst + rank_ + size_ * k_ > kMax) k_ = 0;
    const int id = static_cast<int>(kFirst + rank_ + size_ * k_++);
    if (!alive(id)) return id;
  }
  return -1;
}

}  // namespace mcm::engine
