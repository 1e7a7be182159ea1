#include "pingpong.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace probe {
namespace {

constexpr int kPing = 101, kPong = 102, kStop = 103;

double median_of(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(v.size() - 1, lo + 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

/// One ping of `bytes`; returns {sent at, arrived at (peer's clock), pong back at}.
struct Trip {
  double sent, arrived, back;
};
Trip trip(MPI_Comm comm, int peer, const std::vector<char>& buffer, int bytes) {
  Trip t{};
  t.sent = MPI_Wtime();
  MPI_Send(buffer.data(), bytes, MPI_BYTE, peer, kPing, comm);
  MPI_Recv(&t.arrived, 1, MPI_DOUBLE, peer, kPong, comm, MPI_STATUS_IGNORE);
  t.back = MPI_Wtime();
  return t;
}

void stop(MPI_Comm comm, int peer) {
  MPI_Send(nullptr, 0, MPI_BYTE, peer, kStop, comm);
}

}  // namespace

double estimate_offset(MPI_Comm comm, int peer, int pings) {
  const std::vector<char> none(1);
  trip(comm, peer, none, 0);  // connection set-up is not the path's
  double best_rtt = std::numeric_limits<double>::infinity(), offset = 0;
  for (int k = 0; k < pings; ++k) {
    const Trip t = trip(comm, peer, none, 0);
    if (t.back - t.sent < best_rtt) {
      best_rtt = t.back - t.sent;
      offset = t.arrived - (t.sent + t.back) / 2;
    }
  }
  stop(comm, peer);
  return offset;
}

DirectionResult measure_direction(MPI_Comm comm, int peer, const std::vector<long long>& sizes,
                                  const Repetitions& reps, double offset, long long halved_up_to) {
  long long largest = 0;
  for (long long s : sizes) largest = std::max(largest, s);
  const std::vector<char> buffer(static_cast<std::size_t>(std::max(1LL, largest)), 'p');
  DirectionResult out;
  for (long long size : sizes) {
    const int bytes = static_cast<int>(size);
    trip(comm, peer, buffer, bytes);  // page faults and rendezvous set-up are not the path's
    const bool round_trip = size <= halved_up_to;
    std::vector<double> one_way;
    const double start = MPI_Wtime();
    for (;;) {
      const Trip t = trip(comm, peer, buffer, bytes);
      const double seconds =
          round_trip ? (t.back - t.sent) / 2 : std::max(0.0, t.arrived - offset - t.sent);
      one_way.push_back(seconds * 1e6);
      const int n = static_cast<int>(one_way.size());
      const double elapsed = t.back - start;
      if (n >= reps.max_reps || (n >= reps.min_reps && elapsed >= reps.target_seconds) ||
          elapsed >= reps.cap_seconds)
        break;
    }
    out.median_us.push_back(median_of(one_way));
    out.spread_us.push_back(quantile(one_way, 0.75) - quantile(one_way, 0.25));
    out.low_us.push_back(quantile(one_way, 0.25));
    out.samples.push_back(static_cast<int>(one_way.size()));
  }
  stop(comm, peer);
  return out;
}

void echo(MPI_Comm comm, int peer, long long max_size) {
  std::vector<char> buffer(static_cast<std::size_t>(std::max(1LL, max_size)));
  for (;;) {
    MPI_Status status;
    MPI_Recv(buffer.data(), static_cast<int>(buffer.size()), MPI_BYTE, peer, MPI_ANY_TAG, comm,
             &status);
    const double arrived = MPI_Wtime();
    if (status.MPI_TAG == kStop) return;
    MPI_Send(&arrived, 1, MPI_DOUBLE, peer, kPong, comm);
  }
}

}  // namespace probe
