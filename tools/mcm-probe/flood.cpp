#include "flood.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "mcm/whole_integer.h"

namespace probe {
namespace {

constexpr std::size_t kChunk = 256 * 1024;

std::runtime_error system_error(const std::string& what) {
  return std::runtime_error(what + ": " + std::strerror(errno));
}

std::string local_ipv4_addresses() {
  std::string out;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return out;
  for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
    if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
    if ((a->ifa_flags & IFF_UP) == 0 || (a->ifa_flags & IFF_LOOPBACK) != 0) continue;
    char text[INET_ADDRSTRLEN];
    const auto* in = reinterpret_cast<const sockaddr_in*>(a->ifa_addr);
    if (inet_ntop(AF_INET, &in->sin_addr, text, sizeof text) == nullptr) continue;
    out += (out.empty() ? "" : ",") + std::string(text);
  }
  freeifaddrs(list);
  return out;
}

/// A connected blocking socket to addr:port, or -1 after timeout_ms.
int connect_to(const std::string& addr, int port, int timeout_ms) {
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_port = htons(static_cast<std::uint16_t>(port));
  if (inet_pton(AF_INET, addr.c_str(), &sa.sin_addr) != 1) return -1;
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  if (connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 && errno != EINPROGRESS) {
    close(fd);
    return -1;
  }
  pollfd p{fd, POLLOUT, 0};
  int error = 0;
  socklen_t len = sizeof error;
  if (poll(&p, 1, timeout_ms) != 1 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0 ||
      error != 0) {
    close(fd);
    return -1;
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

}  // namespace

FloodAgent::FloodAgent() {
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw system_error("flood: socket");
  const int one = 1;
  setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t len = sizeof sa;
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&sa), sizeof sa) != 0 ||
      listen(listen_fd_, 16) != 0 ||
      getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&sa), &len) != 0) {
    const auto e = system_error("flood: listening socket");
    close(listen_fd_);
    throw e;
  }
  if (pipe2(wake_pipe_, O_CLOEXEC) != 0) {
    const auto e = system_error("flood: pipe");
    close(listen_fd_);
    throw e;
  }
  endpoint_ = local_ipv4_addresses() + ":" + std::to_string(ntohs(sa.sin_port));
  drain_ = std::thread([this] { drain_loop(); });
}

FloodAgent::~FloodAgent() {
  stop();
  const char byte = 0;
  if (write(wake_pipe_[1], &byte, 1) < 0) {
    // the thread then exits at its next poll
  }
  drain_.join();
  close(wake_pipe_[0]);
  close(wake_pipe_[1]);
  close(listen_fd_);
}

// One thread drains every stream: poll on the listener, the streams and the wake pipe.
void FloodAgent::drain_loop() {
  std::vector<int> streams;
  std::vector<char> sink(kChunk);
  for (;;) {
    std::vector<pollfd> fds{{wake_pipe_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}};
    for (int fd : streams) fds.push_back({fd, POLLIN, 0});
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (fds[0].revents != 0) break;
    if (fds[1].revents & POLLIN) {
      sockaddr_in from{};
      socklen_t length = sizeof from;
      const int fd = accept4(listen_fd_, reinterpret_cast<sockaddr*>(&from), &length, SOCK_CLOEXEC);
      if (fd >= 0) {
        bool welcome;
        {
          std::lock_guard<std::mutex> lock(peers_mutex_);
          welcome = (peers_.empty() || peers_.count(ntohl(from.sin_addr.s_addr)) != 0) &&
                    (max_streams_ == 0 || streams.size() < max_streams_);
        }
        if (welcome) {
          streams.push_back(fd);
        } else {
          if (refused_++ == 0) {
            char text[INET_ADDRSTRLEN] = "?";
            inet_ntop(AF_INET, &from.sin_addr, text, sizeof text);
            std::fprintf(stderr,
                         "mcm-probe: flood agent: refused a connection from %s (a stranger, or "
                         "beyond one open stream per rank); further ones are refused silently\n",
                         text);
          }
          close(fd);
        }
      }
    }
    for (std::size_t k = 2; k < fds.size(); ++k) {
      if (fds[k].revents == 0) continue;
      const ssize_t n = recv(fds[k].fd, sink.data(), sink.size(), MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        close(fds[k].fd);
        streams.erase(std::find(streams.begin(), streams.end(), fds[k].fd));
      }
    }
  }
  for (int fd : streams) close(fd);
}

void FloodAgent::accept_only(const std::vector<std::string>& endpoints) {
  std::set<std::uint32_t> peers;
  for (const std::string& endpoint : endpoints) {
    std::stringstream addresses(endpoint.substr(0, endpoint.rfind(':')));
    std::string addr;
    in_addr parsed{};
    while (std::getline(addresses, addr, ','))
      if (inet_pton(AF_INET, addr.c_str(), &parsed) == 1) peers.insert(ntohl(parsed.s_addr));
  }
  std::lock_guard<std::mutex> lock(peers_mutex_);
  peers_ = std::move(peers);
  max_streams_ = endpoints.size();
}

bool FloodAgent::start(const std::string& peer_endpoint, double rate_bytes_per_s,
                       std::string& error) {
  stop();
  const auto colon = peer_endpoint.rfind(':');
  const std::optional<int> port = colon == std::string::npos
                                      ? std::nullopt
                                      : mcm::whole_integer<int>(peer_endpoint.substr(colon + 1));
  if (!port || *port <= 0 || *port > 65535) {
    error = "bad flood endpoint '" + peer_endpoint + "' (expected ADDRESSES:PORT)";
    return false;
  }
  std::stringstream addresses(peer_endpoint.substr(0, colon));
  std::string addr;
  while (std::getline(addresses, addr, ',')) {
    const int fd = connect_to(addr, *port, 1000);
    if (fd < 0) continue;
    sending_ = true;
    sent_ = 0;
    sender_ = std::thread([this, fd, rate_bytes_per_s] { send_loop(fd, rate_bytes_per_s); });
    return true;
  }
  error = "no address of " + peer_endpoint + " accepted a TCP connection";
  return false;
}

void FloodAgent::send_loop(int fd, double rate) {
  // A send blocks at most 100 ms, so stop() is noticed quickly.
  timeval timeout{0, 100000};
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  std::vector<char> chunk(kChunk, 'f');
  const auto start = std::chrono::steady_clock::now();
  while (sending_) {
    if (rate > 0) {  // stay at or below rate: wait until the bytes sent are due
      const double due = static_cast<double>(sent_) / rate;
      const double now =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (due > now) {
        std::this_thread::sleep_for(std::chrono::duration<double>(std::min(due - now, 0.05)));
        continue;
      }
    }
    const ssize_t n = send(fd, chunk.data(), chunk.size(), MSG_NOSIGNAL);
    if (n > 0) {
      sent_ += static_cast<std::uint64_t>(n);
    } else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      break;  // the peer went away: nothing more to inject
    }
  }
  close(fd);
}

std::uint64_t FloodAgent::stop() {
  if (!sender_.joinable()) return 0;
  sending_ = false;
  sender_.join();
  return sent_;
}

}  // namespace probe
