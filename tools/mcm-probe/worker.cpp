#include "worker.h"

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include "flood.h"
#include "mcm/topology.h"
#include "pingpong.h"
#include "progress.h"
#include "schedule.h"
#include "worker_settings.h"

namespace probe {
namespace {

enum StepKind { kLatencyRound = 1, kInjection = 2, kDone = 3 };
struct Step {
  int kind = kDone;
  int round = 0;
  int source = -1;
  int destination = -1;
};

constexpr double kRampSeconds = 0.5;  // a flood's TCP stream fills the path's queues
const Repetitions kReps{};
// Under a flood a path counts as affected by its lower quartile: a queue the flood keeps
// full delays every sample, a moment without CPU (4 ranks on 2 cores in the testbed)
// only some. More samples make that quartile firm.
const Repetitions kFloodedReps{7, 60, 0.05, 2.0};

std::string utc_now() {
  char text[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

std::string seconds_text(double s) {
  std::ostringstream out;
  out.precision(s < 10 ? 2 : 3);
  out << s << " s";
  return out.str();
}

/// The ranks' shared state: who they are and what they measure with.
class Worker {
 public:
  Worker(const WorkerSettings& s, MPI_Comm comm) : s_(s), comm_(comm) {
    MPI_Comm_rank(comm, &me_);
    MPI_Comm_size(comm, &n_);
    rounds_ = tournament_rounds(n_);
    offsets_.assign(n_, 0.0);
    start_ = MPI_Wtime();
  }

  /// Opens the flood listeners and exchanges their endpoints (collective).
  void prepare_floods() {
    agent_ = std::make_unique<FloodAgent>();
    constexpr int kLen = 512;
    char mine[kLen] = {};
    std::snprintf(mine, kLen, "%s", agent_->endpoint().c_str());
    std::vector<char> all(static_cast<std::size_t>(kLen) * n_);
    MPI_Allgather(mine, kLen, MPI_CHAR, all.data(), kLen, MPI_CHAR, comm_);
    for (int r = 0; r < n_; ++r) endpoints_.emplace_back(&all[static_cast<std::size_t>(r) * kLen]);
    agent_->accept_only(endpoints_);  // streams from the probe's ranks only
  }

  /// Runs steps until kDone; rank 0 is the coordinator and returns the result there.
  mcm::Topology run() {
    if (me_ == 0) return coordinate();
    for (;;) {
      const Step step = broadcast(Step{});
      if (step.kind == kDone) return {};
      execute(step);
    }
  }

 private:
  using Rows = std::vector<std::vector<double>>;  // per rank: partner, medians, spreads

  Step broadcast(Step step) {
    int words[4] = {step.kind, step.round, step.source, step.destination};
    MPI_Bcast(words, 4, MPI_INT, 0, comm_);
    return Step{words[0], words[1], words[2], words[3]};
  }

  /// Both sides of `partner`'s pair run `mine` in turn, the lower rank first, while the
  /// other echoes.
  template <class Measure>
  void take_turns(int partner, long long largest, Measure mine) {
    if (me_ < partner) {
      mine();
      echo(comm_, partner, largest);
    } else {
      echo(comm_, partner, largest);
      mine();
    }
  }

  /// Every pair of round r estimates its clock offsets (pingpong.h) into offsets_.
  void sync_round(int r) {
    const int partner = partner_in(rounds_[r], me_);
    if (partner >= 0)
      take_turns(partner, 1, [&] { offsets_[partner] = estimate_offset(comm_, partner); });
  }

  /// One round of timings at `sizes` by every pair of it (after sync_round); rows at
  /// rank 0, with medians, sizes below the reference and up to kRoundTripMaxBytes as half
  /// round trips (pingpong.h); or, when `low` (under a flood), lower quartiles, every size
  /// one way. The reference size is timed one way in both, which inject() compares.
  Rows run_round(int r, const std::vector<long long>& sizes, const Repetitions& reps,
                 bool low = false) {
    const int partner = partner_in(rounds_[r], me_);
    const std::size_t k = sizes.size();
    std::vector<double> row(1 + 2 * k, mcm::kNotMeasured);
    row[0] = partner;
    if (partner >= 0) {
      DirectionResult mine;
      take_turns(partner, sizes.back(), [&] {
        mine = measure_direction(comm_, partner, sizes, reps, offsets_[partner],
                                 low ? 0 : std::min(kRoundTripMaxBytes, s_.reference_size - 1));
      });
      for (std::size_t i = 0; i < k; ++i) {
        row[1 + i] = low ? mine.low_us[i] : mine.median_us[i];
        row[1 + k + i] = mine.spread_us[i];
      }
    }
    std::vector<double> all(row.size() * static_cast<std::size_t>(n_));
    MPI_Gather(row.data(), static_cast<int>(row.size()), MPI_DOUBLE, all.data(),
               static_cast<int>(row.size()), MPI_DOUBLE, 0, comm_);
    Rows rows;
    if (me_ == 0)
      for (int q = 0; q < n_; ++q)
        rows.emplace_back(all.begin() + q * row.size(), all.begin() + (q + 1) * row.size());
    return rows;
  }

  /// An injection step on every rank: rows of every round at the reference size (rank 0),
  /// and whether the flood ran, with its rate. When `slowed` (evaluated at rank 0) finds
  /// a path slowed in those rounds, every round is measured again under the same flood
  /// (`again`): a path counts as affected only if both agree, so a moment without CPU on
  /// a loaded machine does not pass for a shared bottleneck.
  struct Injected {
    std::vector<Rows> rounds;
    std::vector<Rows> again;
    bool flooded = false;
    double bytes_per_s = 0;
  };
  using SlowedTest = std::function<bool(const std::vector<Rows>&)>;
  Injected inject(const Step& step, const SlowedTest& slowed = {}) {
    Injected out;
    double flood[2] = {0, 0};  // ok, bytes per second; meaningful from the source
    std::string error;
    const bool source = me_ == step.source;
    for (std::size_t r = 0; r < rounds_.size(); ++r) sync_round(static_cast<int>(r));
    if (source) flood[0] = agent_->start(endpoints_[step.destination], s_.flood_rate, error);
    MPI_Barrier(comm_);
    const double t0 = MPI_Wtime();
    std::this_thread::sleep_for(std::chrono::duration<double>(kRampSeconds));
    MPI_Barrier(comm_);
    auto measure_rounds = [&](std::vector<Rows>& into) {
      for (std::size_t r = 0; r < rounds_.size(); ++r)
        into.push_back(
            run_round(static_cast<int>(r), {s_.reference_size}, kFloodedReps, /*low=*/true));
    };
    measure_rounds(out.rounds);
    int confirm = me_ == 0 && slowed && slowed(out.rounds) ? 1 : 0;
    MPI_Bcast(&confirm, 1, MPI_INT, 0, comm_);
    if (confirm) measure_rounds(out.again);
    if (source) flood[1] = static_cast<double>(agent_->stop()) / (MPI_Wtime() - t0);
    // The source's verdict reaches rank 0 (the error text only says that it failed).
    if (step.source != 0) {
      if (source) MPI_Send(flood, 2, MPI_DOUBLE, 0, 7, comm_);
      if (me_ == 0) MPI_Recv(flood, 2, MPI_DOUBLE, step.source, 7, comm_, MPI_STATUS_IGNORE);
    }
    out.flooded = flood[0] != 0;
    out.bytes_per_s = flood[1];
    if (source && !error.empty()) std::fprintf(stderr, "mcm-probe: %s\n", error.c_str());
    MPI_Barrier(comm_);
    return out;
  }

  void execute(const Step& step) {
    if (step.kind == kLatencyRound) {
      sync_round(step.round);
      run_round(step.round, s_.sizes, kReps);
    }
    if (step.kind == kInjection) inject(step);
  }

  double elapsed() const { return MPI_Wtime() - start_; }
  bool fits(double cost) const { return elapsed() + cost <= s_.budget_seconds; }

  mcm::Topology coordinate();
  void measure_latency(mcm::Topology& t, ProgressDisplay& progress);
  void measure_sensibility(mcm::Topology& t, ProgressDisplay& progress);

  WorkerSettings s_;
  MPI_Comm comm_;
  int me_ = 0, n_ = 0;
  double start_ = 0;
  std::vector<std::vector<Pair>> rounds_;
  std::vector<double> offsets_;  // per partner: its clock minus ours (sync_round)
  std::unique_ptr<FloodAgent> agent_;
  std::vector<std::string> endpoints_;
};

mcm::Topology Worker::coordinate() {
  mcm::Topology t;
  t.hosts = s_.hosts;
  t.date = utc_now();
  t.sizes = s_.sizes;
  t.reference_size = s_.reference_size;
  t.latency_us.assign(t.sizes.size(), mcm::empty_matrix(n_));
  t.spread_us.assign(t.sizes.size(), mcm::empty_matrix(n_));
  ProgressDisplay progress(s_.progress);
  measure_latency(t, progress);
  if (!s_.quick) measure_sensibility(t, progress);
  progress.finish();
  broadcast(Step{kDone});
  return t;
}

void Worker::measure_latency(mcm::Topology& t, ProgressDisplay& progress) {
  const int total = static_cast<int>(rounds_.size());
  double last = 0;
  for (int r = 0; r < total; ++r) {
    if (r > 0 && !fits(last)) {
      t.partial = true;
      t.skipped.push_back(
          "latency matrix: rounds " + std::to_string(r + 1) + "-" + std::to_string(total) + " of " +
          std::to_string(total) + " not measured: the time budget ran out after " +
          seconds_text(elapsed()) + " of measuring (one round takes about " + seconds_text(last) +
          "; the whole matrix needs --time-budget " +
          std::to_string(static_cast<int>(std::ceil(1.5 * total * last + 2))) + " or more)");
      return;
    }
    const double t0 = MPI_Wtime();
    broadcast(Step{kLatencyRound, r});
    sync_round(r);
    const Rows rows = run_round(r, t.sizes, kReps);
    const std::size_t k = t.sizes.size();
    for (int q = 0; q < n_; ++q) {
      const int partner = static_cast<int>(rows[q][0]);
      if (partner < 0) continue;
      for (std::size_t i = 0; i < k; ++i) {
        t.latency_us[i][q][partner] = rows[q][1 + i];
        t.spread_us[i][q][partner] = rows[q][1 + k + i];
      }
    }
    last = MPI_Wtime() - t0;
    progress.update("latency matrix", r + 1, total, "rounds");
  }
}

void Worker::measure_sensibility(mcm::Topology& t, ProgressDisplay& progress) {
  mcm::SensibilityInfo& info = t.sensibility_info;
  info.factor = s_.factor;
  info.size = s_.reference_size;
  info.possible = n_ * (n_ - 1);
  if (t.partial) {
    t.skipped.push_back("sensibility matrix: not measured, it needs the complete latency matrix");
    return;
  }
  const int ref = t.size_index(s_.reference_size);
  // Spread the injections out: every source once at distance 1, then at distance 2, ...
  // so that a budget that cuts the list short still samples every VM.
  std::vector<Pair> order;
  for (int shift = 1; shift < n_; ++shift)
    for (int i = 0; i < n_; ++i) order.emplace_back(i, (i + shift) % n_);
  std::vector<std::vector<int>> weights(n_, std::vector<int>(n_, 0));
  const int total = static_cast<int>(order.size());
  double last = kRampSeconds + 0.2 * static_cast<double>(rounds_.size());  // a first guess
  for (int x = 0; x < total; ++x) {
    const auto [i, j] = order[x];
    if (!fits(last)) {
      t.skipped.push_back(
          "sensibility matrix: " + std::to_string(total - x) + " of " + std::to_string(total) +
          " injections not made (the time budget ran out after " + seconds_text(elapsed()) +
          " of measuring; one takes about " + seconds_text(last) + "); weights count the " +
          std::to_string(x) + " injections listed in sensibility_info");
      break;
    }
    // The ordered pairs (other than the flooded one) whose path is above factor x base.
    auto slowed_pairs = [&, i = i, j = j](const std::vector<Rows>& rounds) {
      std::set<Pair> out;
      for (const Rows& rows : rounds)
        for (int q = 0; q < n_; ++q) {
          const int partner = static_cast<int>(rows[q][0]);
          if (partner < 0 || (q == i && partner == j)) continue;
          const double base = t.latency_us[ref][q][partner];
          const double now = rows[q][1];
          if (mcm::measured(base) && mcm::measured(now) && now > s_.factor * base)
            out.emplace(q, partner);
        }
      return out;
    };
    const double t0 = MPI_Wtime();
    const Step step{kInjection, 0, i, j};
    broadcast(step);
    const Injected got = inject(
        step, [&](const std::vector<Rows>& rounds) { return !slowed_pairs(rounds).empty(); });
    last = MPI_Wtime() - t0;
    if (!got.flooded) {
      t.skipped.push_back("sensibility matrix: no flood from " + s_.hosts[i] + " to " +
                          s_.hosts[j] + " (the TCP stream could not be opened)");
      continue;
    }
    const std::set<Pair> confirmed = slowed_pairs(got.again);
    for (const Pair& p : slowed_pairs(got.rounds))
      if (confirmed.count(p)) ++weights[p.first][p.second];
    info.injections.emplace_back(i, j);
    std::ostringstream detail;
    detail.precision(3);
    detail << s_.hosts[i] << "->" << s_.hosts[j] << " at " << got.bytes_per_s / 1e6 << " MB/s";
    progress.update("sensibility", x + 1, total, detail.str());
  }
  if (!info.injections.empty()) {
    t.sensibility = weights;
  } else {
    t.partial = true;
    t.skipped.push_back("sensibility matrix: not measured, no injection fitted the time budget");
  }
}

}  // namespace

int run_worker(int argc, char** argv, const std::vector<std::string>& args) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::string error;
  const auto settings = from_args(args, error);
  if (!settings || static_cast<int>(settings->hosts.size()) != size) {
    if (rank == 0)
      std::fprintf(stderr, "mcm-probe --worker: %s\n",
                   settings ? ("the job has " + std::to_string(size) + " ranks but " +
                               std::to_string(settings->hosts.size()) + " hosts")
                                  .c_str()
                            : error.c_str());
    MPI_Finalize();
    return 2;
  }
  try {
    Worker worker(*settings, MPI_COMM_WORLD);
    if (!settings->quick) worker.prepare_floods();
    const mcm::Topology t = worker.run();
    if (rank == 0) {
      std::cout << kResultBegin << "\n" << mcm::to_yaml(t) << kResultEnd << std::endl;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mcm-probe: rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return 0;
}

}  // namespace probe
