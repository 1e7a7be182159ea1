#include "record/rank_records.h"

#include <unistd.h>

#include <cstdio>

#include "collectives/schedule_choice.h"
#include "engine/engine.h"
#include "mcm/clock.h"
#include "mcm/records.h"

namespace mcm::shim {
namespace {

nlohmann::json counters(const engine::Engine& engine) {
  const engine::Engine::Counters& c = engine.counters();
  return {{"messages_sent", c.messages_sent},
          {"bytes_sent", c.bytes_sent},
          {"frames_sent", c.frames_sent},
          {"messages_received", c.messages_received},
          {"bytes_received", c.bytes_received},
          {"match_acks_sent", c.match_acks_sent},
          {"late_messages", c.late_messages},
          {"path_acks_sent", engine.late_acks_sent()},
          {"route_updates", c.route_updates},
          {"native_sends", c.native_sends},
          {"natives_taken", c.natives_taken},
          {"flushes", c.flushes},
          {"detoured_messages", engine.detoured_messages()},
          {"detours_with_sends", engine.detours().with_sends()},
          {"detours_relayed", engine.detours().relayed_detours()},
          {"collectives_detoured", collectives::schedule_counters().detoured_calls},
          {"schedule_rounds_led", collectives::schedule_counters().rounds_led}};
}

}  // namespace

void write_rank_records(const std::string& dir, const Layout& layout, const char* mode,
                        const engine::Engine* engine, double started_at,
                        const std::vector<Traffic>& sent) {
  std::vector<int> app_of_world(static_cast<size_t>(layout.world_size), -1);
  int my_app_rank = -1;
  for (size_t a = 0; a < layout.world_rank_of_app_rank.size(); ++a) {
    const int w = layout.world_rank_of_app_rank[a];
    if (w >= 0 && w < layout.world_size) app_of_world[static_cast<size_t>(w)] = static_cast<int>(a);
    if (w == layout.world_rank) my_app_rank = static_cast<int>(a);
  }
  const std::string path = dir + "/rank-" + std::to_string(my_app_rank) + ".jsonl";
  records::Writer out(path, {{"program", "libmcm"},
                             {"t", started_at},
                             {"host", records::host_name()},
                             {"pid", static_cast<long>(getpid())},
                             {"mode", mode},
                             {"rank", my_app_rank},
                             {"world_rank", layout.world_rank},
                             {"ranks", layout.world_rank_of_app_rank.size()},
                             {"vm", layout.vm},
                             {"vms", layout.daemon_count}});
  const double now = mcm::wall_seconds();
  nlohmann::json rank = {{"record", "rank"}, {"t", now}, {"wall_s", now - started_at}};
  if (engine != nullptr) {
    rank["outside_mpi_s"] = engine->outside_mpi_seconds();
    rank.update(counters(*engine));
  }
  out.write(rank);
  for (size_t to = 0; to < sent.size(); ++to)
    if (sent[to].messages > 0)
      out.write({{"record", "sent"},
                 {"to", to},
                 {"messages", sent[to].messages},
                 {"bytes", sent[to].bytes}});
  const std::vector<engine::ReceiveTally::FromPeer> none;
  const auto& from = engine != nullptr ? engine->received().from() : none;
  for (size_t w = 0; w < from.size() && w < app_of_world.size(); ++w) {
    const engine::ReceiveTally::FromPeer& p = from[w];
    if (p.messages == 0 || app_of_world[w] < 0) continue;  // nothing, or not an application rank
    out.write({{"record", "received"},
               {"from", app_of_world[w]},
               {"messages", p.messages},
               {"bytes", p.bytes},
               {"waited", p.waited},
               {"wait_s", p.wait_s},
               {"wait_max_s", p.wait_max_s},
               {"wait_histogram", p.wait_histogram}});
  }
  out.close();
  if (!out.error().empty())
    std::fprintf(stderr, "libmcm: cannot write the run records %s\n", out.error().c_str());
}

}  // namespace mcm::shim
