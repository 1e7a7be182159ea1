// A fuzz driver for the control channel (mcm/control/codec.h, seal.h): every payload
// decoder and the frame header, fed random bytes and valid messages mutated (bytes set to
// extremes, cut short, lengthened). Built with AddressSanitizer and UndefinedBehaviorSanitizer
// (test/fuzz/CMakeLists.txt): a read past the bytes ends the run with the sanitizer's report.
// Promises checked: an accepted payload is canonical (written again, it is the same bytes);
// an accepted header says what the bytes say; a mutated sealed frame whose header still
// reads never passes its MAC check; every valid message reads back.
//
// Usage: mcm_control_fuzz [CASES] [SEED]   (default 200000 cases, seed 1)
// Prints the cases run, how many were accepted, and the time; exits 1 on a broken promise.
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "mcm/control/codec.h"
#include "mcm/control/seal.h"

using namespace mcm::control;

namespace {

std::mt19937_64 rng;
int failures = 0;
std::uint64_t accepted = 0;

std::uint64_t below(std::uint64_t n) {
  return n == 0 ? 0 : rng() % n;
}

void broken(const char* what, std::uint64_t case_number) {
  if (++failures <= 10)
    std::fprintf(stderr, "case %llu: %s\n", (unsigned long long)case_number, what);
}

std::string name() {
  static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._:-";
  std::string s(1 + below(kMaxNameBytes), 'a');
  for (char& c : s) c = chars[below(sizeof chars - 1)];
  return s;
}

double number() {
  static const double edges[] = {0, -0.0, 1, 1e-300, 3.6e9, -3.6e9, 86400};
  return below(3) == 0 ? edges[below(7)] : static_cast<double>(below(2000000)) / 7;
}

void mutate(std::vector<char>& bytes) {
  const int edits = 1 + static_cast<int>(below(4));
  for (int i = 0; i < edits && !bytes.empty(); ++i) {
    std::uint64_t v = below(2) ? rng() : (below(2) ? 0 : ~std::uint64_t{0});
    const std::size_t at = below(bytes.size());
    const std::size_t n = std::min<std::size_t>(1 + below(8), bytes.size() - at);
    std::memcpy(bytes.data() + at, &v, n);
  }
  if (below(3) == 0) bytes.resize(below(bytes.size() + 1));
  if (below(3) == 0) bytes.resize(bytes.size() + below(64), static_cast<char>(rng()));
}

std::vector<char> random_bytes(std::size_t max) {
  std::vector<char> bytes(below(max + 1));
  for (char& c : bytes) c = static_cast<char>(rng());
  return bytes;
}

/// Feeds `valid` (the bytes of a message of type T) and a garbled copy to `read`.
template <class T, class Read>
void payload_case(std::uint64_t n, const std::vector<char>& valid, Read read) {
  Decoded<T> back = read(valid);
  if (!back || write(*back) != valid) broken("a valid payload did not read back as written", n);
  std::vector<char> in = valid;
  if (below(2) == 0)
    mutate(in);
  else
    in = random_bytes(300);
  Decoded<T> got = read(in);
  if (!got) {
    if (got.error.empty()) broken("refused without a reason", n);
    return;
  }
  ++accepted;
  if (write(*got) != in) broken("accepted a payload that is not canonical", n);
}

void one_case(std::uint64_t n) {
  switch (below(5)) {
    case 0: {
      IncomingReport r{name(), std::fmod(std::abs(number()), 86400), {}};
      for (std::uint64_t i = below(6); i > 0; --i)
        r.sources.push_back({name(), static_cast<SourceState::Zone>(below(4)), below(2) == 1,
                             below(2) == 1, number(), std::abs(number())});
      payload_case<IncomingReport>(n, write(r), read_incoming_report);
      break;
    }
    case 1:
      payload_case<Hello>(
          n, write(Hello{name(), name(), 1 + static_cast<std::uint32_t>(below(4096))}), read_hello);
      break;
    case 2: {
      std::vector<StatusEcho> echoes(below(4));
      for (auto& e : echoes)
        e = StatusEcho{name(), static_cast<std::int64_t>(rng()),
                       static_cast<std::int64_t>(below(1'000'000'000))};
      payload_case<HostStatus>(
          n,
          write(HostStatus{name(), static_cast<std::uint32_t>(rng()),
                           static_cast<std::uint32_t>(rng()), below(2) == 1, below(2) == 1,
                           number(), below(2) == 1, std::move(echoes)}),
          read_host_status);
      break;
    }
    case 3:
      payload_case<Moved>(n, write(Moved{name(), name(), name()}), read_moved);
      break;
    default: {
      Key key{};
      for (auto& b : key) b = static_cast<unsigned char>(rng());
      std::vector<char> payload = random_bytes(200);
      auto kind = static_cast<Kind>(1 + below(kLastKind));
      std::string id = name().substr(0, 31), sender = name().substr(0, 31);
      auto frame =
          seal(kind, id, sender, rng(), static_cast<std::int64_t>(rng() >> 1), payload, key);
      auto h = read_header(frame.data(), frame.size());
      std::vector<char> rest(frame.begin() + static_cast<long>(kHeaderBytes), frame.end());
      if (!h || h->key_id != id || h->sender != sender || h->kind != kind ||
          !check_mac(frame.data(), *h, rest, key).empty())
        broken("a valid frame did not open", n);
      auto altered = frame;
      mutate(altered);
      auto ah = read_header(altered.data(), altered.size());
      if (!ah) return;
      ++accepted;
      if (ah->payload_bytes > kMaxPayloadBytes) broken("accepted an oversized payload", n);
      if (altered.size() < kHeaderBytes) broken("accepted a short header", n);
      std::vector<char> arest(altered.begin() + static_cast<long>(kHeaderBytes), altered.end());
      if (altered != frame && check_mac(altered.data(), *ah, arest, key).empty())
        broken("an altered frame passed its MAC check", n);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t cases = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 200000;
  rng.seed(argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 1);
  auto start = std::chrono::steady_clock::now();
  for (std::uint64_t n = 0; n < cases; ++n) one_case(n);
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "control fuzz: %llu cases, %llu garbled inputs accepted, %d broken promises, %.2f s\n",
      (unsigned long long)cases, (unsigned long long)accepted, failures, secs);
  return failures == 0 ? 0 : 1;
}
