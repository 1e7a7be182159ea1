#include "record/pattern_recorder.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <numeric>
#include <string>
#include <unordered_map>
#include <vector>

#include "record/pattern_tally.h"
#include "record/pattern_yaml.h"

namespace mcm::shim::recorder {

namespace detail {
std::atomic<bool> g_on{false};
}  // namespace detail

namespace {

/// A persistent send: what each MPI_Start of it sends.
struct PersistentSend {
  int dest;  ///< application rank or RankTally::kOutside
  std::uint64_t bytes;
};

struct State {
  MPI_Comm app_world = MPI_COMM_NULL;
  MPI_Group app_group = MPI_GROUP_NULL;
  /// Caches the rank translation of a communicator on it (a std::vector<int>*), so that
  /// a freed communicator's handle, reused by MPI, never finds a stale one.
  int keyval = MPI_KEYVAL_INVALID;
  bool threaded = false;  ///< MPI_THREAD_MULTIPLE: take `mutex`
  std::mutex mutex;       ///< guards everything below, and the cache attributes
  RankTally tally;
  std::unordered_map<MPI_Request, PersistentSend> persistent;

  explicit State(int ranks) : tally(ranks) {}
};

State* g_state = nullptr;  // set before g_on, deleted after it is cleared

/// The state's mutex, when the application's threads may call MPI at the same time.
class Guard {
 public:
  explicit Guard(State& s) : mutex_(s.threaded ? &s.mutex : nullptr) {
    if (mutex_) mutex_->lock();
  }
  ~Guard() {
    if (mutex_) mutex_->unlock();
  }
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;

 private:
  std::mutex* mutex_;
};

int delete_translation(MPI_Comm, int, void* value, void*) {
  delete static_cast<std::vector<int>*>(value);
  return MPI_SUCCESS;
}

/// The application rank of every rank of `comm` (of its remote group for an
/// intercommunicator), RankTally::kOutside for processes outside the application.
std::vector<int> translate(const State& s, MPI_Comm comm) {
  int inter = 0;
  PMPI_Comm_test_inter(comm, &inter);
  MPI_Group group = MPI_GROUP_NULL;
  if (inter)
    PMPI_Comm_remote_group(comm, &group);
  else
    PMPI_Comm_group(comm, &group);
  int n = 0;
  PMPI_Group_size(group, &n);
  std::vector<int> ranks(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
  std::iota(ranks.begin(), ranks.end(), 0);
  PMPI_Group_translate_ranks(group, n, ranks.data(), s.app_group, out.data());
  PMPI_Group_free(&group);
  for (int& r : out)
    if (r == MPI_UNDEFINED) r = RankTally::kOutside;
  return out;
}

/// `dest` of `comm` as an application rank. Under the guard (the cache is shared).
int app_rank(State& s, MPI_Comm comm, int dest) {
  if (comm == s.app_world) return dest;
  void* value = nullptr;
  int found = 0;
  PMPI_Comm_get_attr(comm, s.keyval, &value, &found);
  auto* table = static_cast<std::vector<int>*>(value);
  if (!found) {
    table = new std::vector<int>(translate(s, comm));
    PMPI_Comm_set_attr(comm, s.keyval, table);
  }
  return dest >= 0 && static_cast<std::size_t>(dest) < table->size()
             ? (*table)[static_cast<std::size_t>(dest)]
             : RankTally::kOutside;
}

std::uint64_t message_bytes(int count, MPI_Datatype type) {
  MPI_Count size = 0;
  PMPI_Type_size_x(type, &size);
  return static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(size);
}

/// Writes `text` to DIR/NAME through a temporary file, so a reader never sees half of it.
void write_file(const std::string& dir, const std::string& name, const std::string& text) {
  const std::string path = dir + "/" + name, temp = path + ".tmp";
  std::FILE* f = std::fopen(temp.c_str(), "w");
  bool ok = f != nullptr && std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (f != nullptr) ok = std::fclose(f) == 0 && ok;
  if (ok) ok = std::rename(temp.c_str(), path.c_str()) == 0;
  if (!ok) {
    std::fprintf(stderr, "libmcm: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
    std::remove(temp.c_str());
  }
}

/// Rank 0: every rank's tally from the gathered words.
bool unpack_all(const std::vector<std::uint64_t>& words, const std::vector<int>& counts, int ranks,
                std::vector<RankTally>* tallies) {
  std::size_t at = 0;
  for (int r = 0; r < ranks; ++r) {
    tallies->emplace_back(ranks);
    const auto n = static_cast<std::size_t>(counts[static_cast<std::size_t>(r)]);
    if (!RankTally::unpack(words.data() + at, n, ranks, &tallies->back())) return false;
    at += n;
  }
  return true;
}

}  // namespace

namespace detail {

void count(MPI_Comm comm, int dest, int count, MPI_Datatype type) {
  const std::uint64_t bytes = message_bytes(count, type);
  State& s = *g_state;
  Guard guard(s);
  s.tally.add(app_rank(s, comm, dest), bytes);
}

void count_start(MPI_Request request) {
  State& s = *g_state;
  Guard guard(s);
  const auto it = s.persistent.find(request);
  if (it != s.persistent.end()) s.tally.add(it->second.dest, it->second.bytes);
}

}  // namespace detail

void start(MPI_Comm app_world) {
  int size = 0, provided = MPI_THREAD_SINGLE;
  PMPI_Comm_size(app_world, &size);
  PMPI_Query_thread(&provided);
  auto* s = new State(size);
  s->app_world = app_world;
  s->threaded = provided == MPI_THREAD_MULTIPLE;
  PMPI_Comm_group(app_world, &s->app_group);
  PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_translation, &s->keyval, nullptr);
  g_state = s;
  detail::g_on.store(true, std::memory_order_release);
}

void persistent_send(MPI_Request request, MPI_Comm comm, int dest, int count, MPI_Datatype type) {
  if (!on() || dest == MPI_PROC_NULL) return;
  const std::uint64_t bytes = message_bytes(count, type);
  State& s = *g_state;
  Guard guard(s);
  s.persistent[request] = PersistentSend{app_rank(s, comm, dest), bytes};
}

void forget(MPI_Request request) {
  if (!on() || request == MPI_REQUEST_NULL) return;
  State& s = *g_state;
  Guard guard(s);
  s.persistent.erase(request);
}

std::vector<Traffic> finish() {
  if (g_state == nullptr) return {};
  detail::g_on.store(false, std::memory_order_release);
  std::unique_ptr<State> s(g_state);
  g_state = nullptr;

  int rank = 0, ranks = 0;
  PMPI_Comm_rank(s->app_world, &rank);
  PMPI_Comm_size(s->app_world, &ranks);
  const std::vector<std::uint64_t> mine = s->tally.pack();
  const int n = static_cast<int>(mine.size());
  std::vector<int> counts(rank == 0 ? static_cast<std::size_t>(ranks) : 0);
  PMPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, s->app_world);
  std::vector<int> displs(counts.size());
  std::size_t all_words = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    displs[r] = static_cast<int>(all_words);
    all_words += static_cast<std::size_t>(counts[r]);
  }
  std::vector<std::uint64_t> all(all_words);
  PMPI_Gatherv(mine.data(), n, MPI_UINT64_T, all.data(), counts.data(), displs.data(), MPI_UINT64_T,
               0, s->app_world);

  const char* dir = std::getenv("MCM_LOG_DIR");
  if (dir != nullptr && *dir != '\0')
    write_file(dir, "pattern-rank-" + std::to_string(rank) + ".yaml",
               rank_pattern_yaml(rank, s->tally));
  if (rank == 0) {
    std::vector<RankTally> tallies;
    if (!unpack_all(all, counts, ranks, &tallies))
      std::fprintf(stderr,
                   "libmcm: mode record: a rank's pattern arrived damaged; "
                   "pattern.yaml is not written\n");
    else if (dir == nullptr || *dir == '\0')
      std::fprintf(stderr,
                   "libmcm: mode record without MCM_LOG_DIR (not started by "
                   "mcmrun?): the communication pattern is not written\n");
    else
      write_file(dir, "pattern.yaml", pattern_yaml(merge(tallies)));
  }
  PMPI_Group_free(&s->app_group);
  PMPI_Comm_free_keyval(&s->keyval);
  return s->tally.to();
}

}  // namespace mcm::shim::recorder
