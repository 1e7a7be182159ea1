// fake_reporter: speaks a daemon's side of the control channel to a real lmcd
// (test/system/lmcd_test.sh), so that lmcd is tested before mcmd reports to it.
//
// Usage: fake_reporter LMCD_ADDRESS:PORT JOB_ID KEY_FILE DOMAIN VM_COUNT SECONDS
// [SOURCE=ZONE[:EXCESS_US]...]
//   registers DOMAIN (hello), then for SECONDS reports every 0.5 s the given incoming
//   paths (ZONE: low, medium, high; EXCESS_US default 5000 for high, 0 otherwise), and
//   prints every answer lmcd sends, one a line: "welcome HOST", "refused REASON",
//   "moved DOMAIN TO_HOST TO_ADDRESS", or "closed" when lmcd closes the connection.
// Exit: 0 after SECONDS (or once moved), 1 when lmcd cannot be reached, 2 on usage errors.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "mcm/control/codec.h"
#include "mcm/control/seal.h"

using namespace mcm::control;

namespace {

bool read_exactly(int fd, char* p, std::size_t n) {
  while (n > 0) {
    ssize_t r = read(fd, p, n);
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 7) {
    std::fprintf(stderr,
                 "usage: fake_reporter ADDRESS:PORT JOB_ID KEY_FILE DOMAIN VM_COUNT SECONDS "
                 "[SOURCE=ZONE[:EXCESS]...]\n");
    return 2;
  }
  std::string at = argv[1], job = argv[2], domain = argv[4];
  std::stringstream text;
  text << std::ifstream(argv[3]).rdbuf();
  auto key = parse_key(text.str());
  if (!key) {
    std::fprintf(stderr, "fake_reporter: %s: %s\n", argv[3], key.error.c_str());
    return 2;
  }
  IncomingReport report{domain, 0.5, {}};
  for (int i = 7; i < argc; ++i) {
    std::string s = argv[i];
    auto eq = s.find('='), colon = s.find(':', eq);
    std::string zone =
        s.substr(eq + 1, colon == std::string::npos ? std::string::npos : colon - eq - 1);
    SourceState::Zone z = zone == "high"     ? SourceState::Zone::high
                          : zone == "medium" ? SourceState::Zone::medium
                                             : SourceState::Zone::low;
    double excess = colon != std::string::npos     ? std::atof(s.c_str() + colon + 1)
                    : z == SourceState::Zone::high ? 5000
                                                   : 0;
    report.sources.push_back({s.substr(0, eq), z, false, false, excess, 600});
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port =
      htons(static_cast<std::uint16_t>(std::atoi(at.substr(at.rfind(':') + 1).c_str())));
  inet_pton(AF_INET, at.substr(0, at.rfind(':')).c_str(), &addr.sin_addr);
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    std::fprintf(stderr, "fake_reporter: cannot reach lmcd at %s: %s\n", at.c_str(),
                 std::strerror(errno));
    return 1;
  }
  std::uint64_t seq = static_cast<std::uint64_t>(wall_ns());
  auto send = [&](Kind kind, const std::vector<char>& payload) {
    auto frame = seal(kind, job, domain, ++seq, wall_ns(), payload, *key);
    return write(fd, frame.data(), frame.size()) == static_cast<ssize_t>(frame.size());
  };
  send(Kind::hello, write(Hello{domain, "-", static_cast<std::uint32_t>(std::atoi(argv[5]))}));
  auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(std::atof(argv[6]));
  auto next = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() < end) {
    if (std::chrono::steady_clock::now() >= next && !report.sources.empty()) {
      if (!send(Kind::incoming_report, write(report))) break;
      next += std::chrono::milliseconds(500);
    }
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 50) <= 0) continue;
    char head[kHeaderBytes];
    if (!read_exactly(fd, head, kHeaderBytes)) {
      std::printf("closed\n");
      return 0;
    }
    auto h = read_header(head, kHeaderBytes);
    if (!h) return std::printf("closed\n"), 0;
    std::vector<char> rest(h->payload_bytes + kMacBytes);
    if (!read_exactly(fd, rest.data(), rest.size()) || !check_mac(head, *h, rest, *key).empty())
      return std::printf("closed\n"), 0;
    std::vector<char> payload(rest.begin(), rest.begin() + h->payload_bytes);
    if (h->kind == Kind::welcome) {
      if (auto w = read_welcome(payload)) std::printf("welcome %s\n", w->host.c_str());
    } else if (h->kind == Kind::refused) {
      if (auto r = read_refused(payload)) std::printf("refused %s\n", r->reason.c_str());
    } else if (h->kind == Kind::moved) {
      if (auto m = read_moved(payload))
        std::printf("moved %s %s %s\n", m->domain.c_str(), m->to_host.c_str(),
                    m->to_address.c_str());
      std::fflush(stdout);
      return 0;
    }
    std::fflush(stdout);
  }
  close(fd);
  return 0;
}
