#include "engine/context_registry.h"

#include <cstdio>
#include <numeric>

namespace mcm::engine {

using Guard = std::lock_guard<FairLock>;

void ContextRegistry::start(MPI_Comm app_world, FairLock& lock,
                            std::function<void(Context&)> on_free) {
  on_free_ = std::move(on_free);
  lock_ = &lock;
  PMPI_Comm_group(MPI_COMM_WORLD, &world_group_);
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &ContextRegistry::delete_attr, &keyval_, this);
  int world_rank = 0, world_size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &world_size);
  ids_.emplace(world_rank, world_size);
  add(app_world, 0);
  add(MPI_COMM_SELF, 1);
}

void ContextRegistry::adopt(std::unique_ptr<Context> context) {
  by_id_[context->id] = context.get();
  adopted_.push_back(std::move(context));
}

void ContextRegistry::stop() {
  for (const auto& context : adopted_) by_id_.erase(context->id);
  adopted_.clear();
  if (keyval_ == MPI_KEYVAL_INVALID) return;
  // Deleting the attributes runs delete_attr, which empties by_id_.
  std::vector<MPI_Comm> comms;
  for (auto& [id, context] : by_id_) comms.push_back(context->comm);
  for (MPI_Comm c : comms) PMPI_Comm_delete_attr(c, keyval_);
  PMPI_Comm_free_keyval(&keyval_);
  PMPI_Group_free(&world_group_);
  ids_.reset();
}

void ContextRegistry::register_new(MPI_Comm comm) {
  if (comm == MPI_COMM_NULL || keyval_ == MPI_KEYVAL_INVALID) return;
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  MPI_Comm agree = comm;
  if (inter) PMPI_Intercomm_merge(comm, 0, &agree);
  int rank = 0, id = -1;
  PMPI_Comm_rank(agree, &rank);
  if (rank == 0) {
    Guard guard(*lock_);
    id = ids_->next([this](int candidate) { return by_id_.count(candidate) != 0; });
  }
  PMPI_Bcast(&id, 1, MPI_INT, 0, agree);  // outside the lock: see the header, "Threads"
  if (inter) PMPI_Comm_free(&agree);
  if (id < 0) {
    std::fprintf(stderr, "libmcm: no free communicator id left in this process (%zu live)\n",
                 by_id_.size());
    PMPI_Abort(MPI_COMM_WORLD, 1);
  }
  Guard guard(*lock_);
  add(comm, id);
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
  if (self->on_free_) self->on_free_(*context);
  self->by_id_.erase(context->id);
  delete context;
  return MPI_SUCCESS;
}

}  // namespace mcm::engine
