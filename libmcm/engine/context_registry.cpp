#include "context_registry.h"

#include <algorithm>
#include <numeric>

namespace mcm::engine {

using Guard = std::lock_guard<FairLock>;

void ContextRegistry::start(MPI_Comm app_world, FairLock& lock) {
  lock_ = &lock;
  PMPI_Comm_group(MPI_COMM_WORLD, &world_group_);
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &ContextRegistry::delete_attr, &keyval_, this);
  add(app_world, 0);
  add(MPI_COMM_SELF, 1);
}

void ContextRegistry::stop() {
  if (keyval_ == MPI_KEYVAL_INVALID) return;
  // Deleting the attributes runs delete_attr, which empties by_id_.
  std::vector<MPI_Comm> comms;
  for (auto& [id, context] : by_id_) comms.push_back(context->comm);
  for (MPI_Comm c : comms) PMPI_Comm_delete_attr(c, keyval_);
  PMPI_Comm_free_keyval(&keyval_);
  PMPI_Group_free(&world_group_);
  next_id_ = 2;
}

void ContextRegistry::register_new(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL || keyval_ == MPI_KEYVAL_INVALID) return;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  MPI_Comm agree = comm;
  if (inter) PMPI_Intercomm_merge(comm, 0, &agree);
  int id = -1;
  while ((id = agree_once(agree)) < 0) {  // a failed round left next_id_ above its id
  }
  if (inter) PMPI_Comm_free(&agree);
  Guard guard(*lock_);
  add(comm, id);
}

int ContextRegistry::agree_once(MPI_Comm agree) {
  int provided = MPI_THREAD_SINGLE;
  PMPI_Query_thread(&provided);
  int mine[2] = {0, provided == MPI_THREAD_MULTIPLE ? 1 : 0}, all[2] = {0, 0};
  {
    Guard guard(*lock_);
    mine[0] = next_id_++;  // reserved: no other thread here proposes or takes it
  }
  PMPI_Allreduce(mine, all, 2, MPI_INT, MPI_MAX, agree);
  const int id = all[0];
  int free_here = 1, free_everywhere = 0;
  {
    // Every id below next_id_ but our own proposal may be another thread's (reserved,
    // taken, or skipped: either way not ours to take); from next_id_ up all are free.
    Guard guard(*lock_);
    free_here = id == mine[0] || id >= next_id_ ? 1 : 0;
    next_id_ = std::max(next_id_, id + 1);  // reserved, even if the round fails
  }
  if (all[1] == 0) return id;  // no member has threads: the maximum is free everywhere
  PMPI_Allreduce(&free_here, &free_everywhere, 1, MPI_INT, MPI_MIN, agree);
  return free_everywhere ? id : -1;
}

Context* ContextRegistry::find(MPI_Comm comm) const {
  if (keyval_ == MPI_KEYVAL_INVALID || comm == MPI_COMM_NULL) return nullptr;
  void* value = nullptr;
  int flag = 0;
  PMPI_Comm_get_attr(comm, keyval_, &value, &flag);
  return flag ? static_cast<Context*>(value) : nullptr;
}

Context* ContextRegistry::find(int id) const {
  const auto it = by_id_.find(id);
  return it == by_id_.end() ? nullptr : it->second;
}

void ContextRegistry::add(MPI_Comm comm, int id) {
  auto context = std::make_unique<Context>();
  context->id = id;
  context->comm = comm;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  context->inter = inter != 0;
  PMPI_Comm_rank(comm, &context->my_rank);
  MPI_Group peers;
  if (context->inter) {
    PMPI_Comm_remote_group(comm, &peers);
  } else {
    PMPI_Comm_group(comm, &peers);
  }
  int n = 0;
  PMPI_Group_size(peers, &n);
  std::vector<int> ranks(static_cast<size_t>(n));
  std::iota(ranks.begin(), ranks.end(), 0);
  context->world_of_peer.resize(ranks.size());
  PMPI_Group_translate_ranks(peers, n, ranks.data(), world_group_, context->world_of_peer.data());
  PMPI_Group_free(&peers);
  by_id_[id] = context.get();
  PMPI_Comm_set_attr(comm, keyval_, context.release());
}

int ContextRegistry::delete_attr(MPI_Comm, int, void* value, void* extra) {
  auto* self = static_cast<ContextRegistry*>(extra);
  auto* context = static_cast<Context*>(value);
  Guard guard(*self->lock_);  // MPI_Comm_free may come from any application thread
  self->by_id_.erase(context->id);
  delete context;
  return MPI_SUCCESS;
}

}  // namespace mcm::engine
