#include "shim.h"

#include <dlfcn.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "collectives/schedule_choice.h"
#include "engine/engine.h"
#include "mcm/bootstrap.h"
#include "mcm/clock.h"
#include "mcm/config.h"
#include "mcm/protocol.h"
#include "record/pattern_recorder.h"
#include "record/rank_records.h"
#include "substitution.h"

// The substitution state read by every generated wrapper (substitution.h).
extern "C" {
MPI_Comm mcm_app_world = MPI_COMM_NULL;
MPI_Fint mcm_app_world_f = -1;
MPI_Fint mcm_world_f = 0;

void mcm_comm_created(MPI_Comm comm) {
  auto& engine = mcm::engine::Engine::instance();
  if (comm == MPI_COMM_NULL || !engine.active()) return;
  engine.contexts().register_new(comm);  // takes the engine lock itself, between collectives
}

void* mcm_fortran_lookup(const char* symbol) {
  return dlsym(RTLD_NEXT, symbol);
}

void mcm_fortran_missing(const char* mpi_function) {
  std::fprintf(stderr,
               "libmcm: %s called from Fortran but Open MPI's Fortran bindings "
               "(libmpi_mpifh) are not loaded; aborting\n",
               mpi_function);
  std::abort();
}
}

namespace mcm::shim {
namespace {

Layout g_layout;
bool g_active = false;
double g_started_at = 0;  ///< when the shim started in MPI_Init (wall seconds), for the records

// Marks the application world and, through MPI_COMM_DUP_FN, every communicator duplicated
// from it: those are the communicators on which plain Open MPI answers the predefined
// attributes (dup copies them; split, create and topology constructors do not).
int g_world_lineage_key = MPI_KEYVAL_INVALID;

bool carries_world_attributes(MPI_Comm comm) {
  if (g_world_lineage_key == MPI_KEYVAL_INVALID || comm == MPI_COMM_NULL) return false;
  void* value = nullptr;
  int flag = 0;
  PMPI_Comm_get_attr(comm, g_world_lineage_key, &value, &flag);
  return flag != 0;
}

bool is_predefined_world_key(int keyval) {
  switch (keyval) {
    case MPI_TAG_UB:
    case MPI_HOST:
    case MPI_IO:
    case MPI_WTIME_IS_GLOBAL:
    case MPI_APPNUM:
    case MPI_UNIVERSE_SIZE:
    case MPI_LASTUSEDCODE:
      return true;
    default:
      return false;
  }
}

/// Modes relay and adaptive: the engine takes over point-to-point traffic on managed
/// communicators.
void start_engine(bool adaptive) {
  std::size_t chunk = mcm::RelayConfig::kDefaultChunkBytes;
  if (const char* text = std::getenv("MCM_CHUNK_BYTES")) chunk = std::strtoull(text, nullptr, 10);
  mcm::engine::Engine& engine = mcm::engine::Engine::instance();
  if (const char* text = std::getenv("MCM_STALL_WARNING_S"))
    engine.set_stall_warning(std::chrono::seconds(std::strtol(text, nullptr, 10)));
  if (const char* text = std::getenv("MCM_MAX_MESSAGE_BYTES"))
    engine.set_max_message_bytes(std::strtoull(text, nullptr, 10));
  engine.start(g_layout, chunk, adaptive);
}

/// At exit of a rank that lost messages (frames.h rule 4): whatever status the
/// application exits with, the job's is kLostMessagesExitCode. Its output first.
void exit_with_loss() {
  std::fflush(nullptr);
  std::_Exit(protocol::kLostMessagesExitCode);
}

const char* mode_name() {
  const char* mode = std::getenv("MCM_MODE");
  return mode != nullptr ? mode : "unknown";
}

}  // namespace

void start() {
  g_started_at = mcm::wall_seconds();
  const char* mode = std::getenv("MCM_MODE");
  if (mode == nullptr) {
    std::fprintf(stderr,
                 "libmcm: preloaded without mcmrun (MCM_MODE unset); "
                 "passing every MPI call through unchanged\n");
    return;
  }
  const bool adaptive = std::strcmp(mode, "adaptive") == 0;
  const bool relay = adaptive || std::strcmp(mode, "relay") == 0;  // both carry frames
  const bool record = std::strcmp(mode, "record") == 0;
  mcm::Doorbell& bell = mcm::engine::Engine::instance().doorbell();
  if (relay) bell.open(/*listen=*/true);  // best effort: without it, waits poll on a timer
  g_layout = bootstrap(Role::application, bell.address());
  bell.accept_only(g_layout.doorbell_of_world_rank);  // rings from the job only
  // Correctness holds without daemons (the application world is still exact): say so once.
  const bool first_app_rank = g_layout.world_rank_of_app_rank.front() == g_layout.world_rank;
  if (g_layout.daemon_count == 0 && first_app_rank) {
    std::fprintf(stderr,
                 "libmcm: no mcmd in this job (was it launched by mcmrun?); "
                 "MCM features are off\n");
  } else if (g_layout.daemon_count > 0 && g_layout.local_daemon < 0) {
    std::fprintf(stderr, "libmcm: rank %d: no mcmd on this VM; its messages are not managed\n",
                 g_layout.world_rank);
  }
  PMPI_Comm_set_name(g_layout.role_comm, "MPI_COMM_WORLD");
  PMPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &g_world_lineage_key, nullptr);
  PMPI_Comm_set_attr(g_layout.role_comm, g_world_lineage_key, nullptr);
  mcm_world_f = PMPI_Comm_c2f(MPI_COMM_WORLD);
  mcm_app_world_f = PMPI_Comm_c2f(g_layout.role_comm);
  mcm_app_world = g_layout.role_comm;
  g_active = true;
  if (relay) start_engine(adaptive);
  // Collectives leave a detoured pair too (collectives/schedule_choice.h).
  if (adaptive) mcm::collectives::start(g_layout);
  // The pattern is counted in mode record, and for the run's records with a log directory.
  const char* log_dir = std::getenv("MCM_LOG_DIR");
  if (record || (log_dir != nullptr && *log_dir != '\0')) recorder::start(g_layout.role_comm);
}

void stop() {
  if (!g_active) return;
  // Collective over the application world, which release() frees.
  const std::vector<Traffic> sent = recorder::finish();
  auto& engine = mcm::engine::Engine::instance();
  const bool engine_was_active = engine.active();
  mcm::collectives::stop();  // its shadows are the engine's contexts
  engine.stop();             // sends the last late-message reports too
  if (engine.lost_messages() > 0) {
    std::fprintf(stderr,
                 "libmcm: error: world rank %d lost %zu message(s) (above); it exits with status "
                 "%d whatever the application returns\n",
                 g_layout.world_rank, engine.lost_messages(), protocol::kLostMessagesExitCode);
    std::atexit(exit_with_loss);
  }
  const char* log_dir = std::getenv("MCM_LOG_DIR");
  if (log_dir != nullptr && *log_dir != '\0')
    write_rank_records(log_dir, g_layout, mode_name(), engine_was_active ? &engine : nullptr,
                       g_started_at, sent);
  g_active = false;
  mcm_app_world = MPI_COMM_NULL;
  if (g_layout.local_daemon >= 0) {
    MPI_Request request;
    PMPI_Isend(nullptr, 0, MPI_BYTE, g_layout.local_daemon, protocol::kTagAppFinalizing,
               g_layout.private_comm, &request);
    // An idle daemon sleeps until its doorbell rings (mcm/doorbell.h).
    engine.doorbell().ring(
        g_layout.doorbell_of_world_rank[static_cast<size_t>(g_layout.local_daemon)]);
    PMPI_Wait(&request, MPI_STATUS_IGNORE);
  }
  release(g_layout);
  PMPI_Comm_free_keyval(&g_world_lineage_key);
}

MPI_Comm attribute_comm(MPI_Comm comm, int keyval) {
  if (!is_predefined_world_key(keyval) || !g_active) return mcm_substitute(comm);
  if (comm == MPI_COMM_WORLD) return comm;
  // A duplicate of world inherits all of world's predefined attributes but this one.
  if (keyval != MPI_LASTUSEDCODE && carries_world_attributes(comm)) return MPI_COMM_WORLD;
  return comm;
}

MPI_Fint attribute_comm_f(MPI_Fint comm, MPI_Fint keyval) {
  if (!is_predefined_world_key(keyval) || !g_active) return mcm_substitute_f(comm);
  if (comm == mcm_world_f) return comm;
  return PMPI_Comm_c2f(attribute_comm(PMPI_Comm_f2c(comm), keyval));
}

}  // namespace mcm::shim
