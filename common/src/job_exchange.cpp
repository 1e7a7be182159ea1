#include "job_exchange.h"

#include <mpi.h>
#include <pmix.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

namespace mcm::detail {
namespace {

[[noreturn]] void fail(int world_rank, const std::string& what) {
  std::fprintf(stderr, "mcm: start-up (world rank %d): %s\n", world_rank, what.c_str());
  std::fflush(stderr);
  PMPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();  // PMPI_Abort does not return
}

}  // namespace

JobExchange::JobExchange(int world_rank, int world_size)
    : world_rank_(world_rank), world_size_(world_size) {
  // PMIx_Init may be called again by a process that MPI_Init joined already (it counts).
  pmix_proc_t me;
  if (PMIx_Init(&me, nullptr, 0) != PMIX_SUCCESS) return;
  if (me.rank != static_cast<pmix_rank_t>(world_rank)) {  // not the world's numbering
    PMIx_Finalize(nullptr, 0);
    return;
  }
  pmix_ = true;
  nspace_ = me.nspace;
}

JobExchange::~JobExchange() {
  if (pmix_) PMIx_Finalize(nullptr, 0);
}

std::vector<char> JobExchange::all(const std::string& key, const void* mine, std::size_t bytes) {
  std::vector<char> out(bytes * static_cast<std::size_t>(world_size_));
  if (!pmix_) {
    PMPI_Allgather(mine, static_cast<int>(bytes), MPI_BYTE, out.data(), static_cast<int>(bytes),
                   MPI_BYTE, MPI_COMM_WORLD);
    return out;
  }
  pmix_value_t value;
  PMIX_VALUE_CONSTRUCT(&value);
  value.type = PMIX_BYTE_OBJECT;
  value.data.bo.bytes = static_cast<char*>(const_cast<void*>(mine));
  value.data.bo.size = bytes;
  pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key.c_str(), &value);  // copies the bytes
  if (rc == PMIX_SUCCESS) rc = PMIx_Commit();
  pmix_proc_t everyone;
  PMIX_LOAD_PROCID(&everyone, nspace_.c_str(), PMIX_RANK_WILDCARD);
  bool collect = true;
  pmix_info_t info;
  PMIX_INFO_CONSTRUCT(&info);
  PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
  if (rc == PMIX_SUCCESS) rc = PMIx_Fence(&everyone, 1, &info, 1);
  PMIX_INFO_DESTRUCT(&info);
  if (rc != PMIX_SUCCESS)
    fail(world_rank_, "PMIx could not exchange " + key + ": " + PMIx_Error_string(rc));
  for (int r = 0; r < world_size_; ++r) {
    pmix_proc_t proc;
    PMIX_LOAD_PROCID(&proc, nspace_.c_str(), static_cast<pmix_rank_t>(r));
    pmix_value_t* got = nullptr;
    rc = PMIx_Get(&proc, key.c_str(), nullptr, 0, &got);
    const bool fits = rc == PMIX_SUCCESS && got != nullptr && got->type == PMIX_BYTE_OBJECT &&
                      got->data.bo.size == bytes;
    if (fits)
      std::memcpy(out.data() + static_cast<std::size_t>(r) * bytes, got->data.bo.bytes, bytes);
    if (got != nullptr) PMIX_VALUE_RELEASE(got);
    if (!fits)
      fail(world_rank_, "world rank " + std::to_string(r) + " published no " + key + " of " +
                            std::to_string(bytes) +
                            " bytes (is it an MCM process of this install?)");
  }
  return out;
}

std::vector<int> JobExchange::local_ranks() {
  std::vector<int> ranks;
  if (pmix_) {
    pmix_proc_t job;
    PMIX_LOAD_PROCID(&job, nspace_.c_str(), PMIX_RANK_WILDCARD);
    pmix_value_t* got = nullptr;
    const pmix_status_t rc = PMIx_Get(&job, PMIX_LOCAL_PEERS, nullptr, 0, &got);
    if (rc == PMIX_SUCCESS && got != nullptr && got->type == PMIX_STRING &&
        got->data.string != nullptr) {
      std::istringstream list(got->data.string);
      for (std::string item; std::getline(list, item, ',');)
        ranks.push_back(static_cast<int>(std::strtol(item.c_str(), nullptr, 10)));
    }
    if (got != nullptr) PMIX_VALUE_RELEASE(got);
    if (std::find(ranks.begin(), ranks.end(), world_rank_) == ranks.end())
      fail(world_rank_,
           "PMIx names no local processes of this one (" + std::string(PMIX_LOCAL_PEERS) + ")");
  } else {
    MPI_Comm node;
    PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_rank_, MPI_INFO_NULL, &node);
    int size = 0;
    PMPI_Comm_size(node, &size);
    ranks.resize(static_cast<std::size_t>(size));
    PMPI_Allgather(&world_rank_, 1, MPI_INT, ranks.data(), 1, MPI_INT, node);
    PMPI_Comm_free(&node);
  }
  std::sort(ranks.begin(), ranks.end());
  return ranks;
}

}  // namespace mcm::detail
