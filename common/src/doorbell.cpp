#include "mcm/doorbell.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <linux/filter.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

namespace mcm {
namespace {

/// The first IPv4 address of an interface that is up and not loopback, or 0.
std::uint32_t local_ipv4() {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return 0;
  std::uint32_t found = 0;
  for (ifaddrs* i = list; i != nullptr && found == 0; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
    if (!(i->ifa_flags & IFF_UP) || (i->ifa_flags & IFF_LOOPBACK)) continue;
    found = ntohl(reinterpret_cast<const sockaddr_in*>(i->ifa_addr)->sin_addr.s_addr);
  }
  freeifaddrs(list);
  return found;
}

/// Attaches a classic BPF socket filter that drops, in the kernel, every datagram whose
/// IPv4 source (address and port) is not one of `peers`: a flood from outside the job
/// then never wakes the process. Per host: its address, then its ports (a host with more
/// than kMaxPortsPerHost is accepted whole: the jumps of classic BPF are 8-bit); a job too
/// large for BPF_MAXINSNS, or a kernel that refuses, leaves only drain()'s check.
void drop_strangers_in_kernel(int fd,
                              const std::map<std::uint32_t, std::set<std::uint16_t>>& peers) {
  constexpr std::size_t kMaxPortsPerHost = 120;
  constexpr std::size_t kMaxInstructions = BPF_MAXINSNS;
  constexpr std::uint32_t kNet = static_cast<std::uint32_t>(SKF_NET_OFF);
  constexpr std::uint32_t kAccept = 0xffffffffu;
  std::vector<sock_filter> program = {
      BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, kNet),      // X = IPv4 header length
      BPF_STMT(BPF_LD | BPF_H | BPF_IND, kNet),       // A = UDP source port
      BPF_STMT(BPF_ST, 0),                            // M[0] = A
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kNet + 12),  // A = IPv4 source address
  };
  for (const auto& [host, ports] : peers) {
    const bool whole = ports.size() > kMaxPortsPerHost;
    const std::size_t body = whole ? 1 : 2 + 2 * ports.size();  // after the host's jeq
    program.push_back(
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, host, 0, static_cast<std::uint8_t>(body)));
    if (whole) {
      program.push_back(BPF_STMT(BPF_RET | BPF_K, kAccept));
      continue;
    }
    program.push_back(BPF_STMT(BPF_LD | BPF_MEM, 0));  // A = the port
    for (std::uint16_t port : ports) {
      program.push_back(BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, port, 0, 1));
      program.push_back(BPF_STMT(BPF_RET | BPF_K, kAccept));
    }
    program.push_back(BPF_STMT(BPF_RET | BPF_K, 0));  // the host's, but not a port of the job
  }
  program.push_back(BPF_STMT(BPF_RET | BPF_K, 0));  // another host
  if (peers.empty() || program.size() > kMaxInstructions) return;
  sock_fprog filter{static_cast<unsigned short>(program.size()), program.data()};
  (void)setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &filter, sizeof filter);
}

/// Where a datagram to `to` goes.
sockaddr_in socket_address(const DoorbellAddress& to) {
  sockaddr_in target{};
  target.sin_family = AF_INET;
  target.sin_addr.s_addr = htonl(to.ipv4);
  target.sin_port = htons(to.port);
  return target;
}

}  // namespace

Doorbell::~Doorbell() {
  if (fd_ >= 0) close(fd_);
}

bool Doorbell::open(bool listen, bool stamped) {
  fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return false;
  if (!listen) return true;
  const std::uint32_t ipv4 = local_ipv4();
  sockaddr_in own{};
  own.sin_family = AF_INET;
  own.sin_addr.s_addr = htonl(ipv4 != 0 ? ipv4 : INADDR_ANY);
  socklen_t length = sizeof own;
  if (bind(fd_, reinterpret_cast<sockaddr*>(&own), sizeof own) != 0 ||
      getsockname(fd_, reinterpret_cast<sockaddr*>(&own), &length) != 0) {
    close(fd_);
    fd_ = -1;
    return false;
  }
  address_ = DoorbellAddress{ipv4, ntohs(own.sin_port)};
  const int on = 1;
  stamped_ = stamped && setsockopt(fd_, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) == 0;
  return true;
}

void Doorbell::ring(const DoorbellAddress& to, std::uint64_t key) const {
  if (fd_ < 0 || !to.valid()) return;
  const sockaddr_in target = socket_address(to);
  (void)sendto(fd_, &key, sizeof key, MSG_DONTWAIT, reinterpret_cast<const sockaddr*>(&target),
               sizeof target);
}

bool Doorbell::post(const DoorbellAddress& to, const void* data, std::size_t bytes) const {
  if (fd_ < 0 || !to.valid() || bytes <= sizeof(std::uint64_t) || bytes > Letter::kMaxBytes)
    return false;
  const sockaddr_in target = socket_address(to);
  return sendto(fd_, data, bytes, MSG_DONTWAIT, reinterpret_cast<const sockaddr*>(&target),
                sizeof target) == static_cast<ssize_t>(bytes);
}

void Doorbell::accept_only(const std::vector<DoorbellAddress>& peers) {
  peers_.clear();
  std::map<std::uint32_t, std::set<std::uint16_t>> by_host;
  for (const DoorbellAddress& p : peers) {
    if (!p.valid()) continue;
    peers_.insert(std::uint64_t{p.ipv4} << 16 | p.port);
    by_host[p.ipv4].insert(p.port);
  }
  filtering_ = true;
  if (fd_ >= 0) drop_strangers_in_kernel(fd_, by_host);
}

DoorbellAddress Doorbell::first_stranger() const {
  const std::uint64_t packed = first_stranger_.load(std::memory_order_relaxed);
  return DoorbellAddress{static_cast<std::uint32_t>(packed >> 16),
                         static_cast<std::uint16_t>(packed & 0xffff)};
}

std::string to_string(const DoorbellAddress& address) {
  const in_addr raw{htonl(address.ipv4)};
  char text[INET_ADDRSTRLEN] = "?";
  inet_ntop(AF_INET, &raw, text, sizeof text);
  return std::string(text) + ":" + std::to_string(address.port);
}

bool Doorbell::accepted(std::uint32_t ipv4, std::uint16_t port) const {
  if (!filtering_) return true;
  const std::uint64_t packed = std::uint64_t{ipv4} << 16 | port;
  if (peers_.count(packed) != 0) return true;
  if (ignored_.fetch_add(1, std::memory_order_relaxed) == 0)
    first_stranger_.store(packed, std::memory_order_relaxed);
  return false;
}

int Doorbell::drain(std::vector<Ring>* keyed, std::vector<Letter>* letters) const {
  if (fd_ < 0) return 0;
  const bool want_stamps = keyed != nullptr && stamped_;
  int rings = 0;
  for (int n = 0; n < kMaxDatagramsPerDrain; ++n) {
    // Room for the longest letter and one byte more, so that a longer datagram shows.
    alignas(std::uint64_t) char buffer[Letter::kMaxBytes + 1];
    iovec data{buffer, sizeof buffer};
    sockaddr_in from{};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
    msghdr message{};
    message.msg_name = &from;
    message.msg_namelen = sizeof from;
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    message.msg_control = want_stamps ? control : nullptr;
    message.msg_controllen = want_stamps ? sizeof control : 0;
    const ssize_t got = recvmsg(fd_, &message, MSG_DONTWAIT);
    if (got < 0) break;
    if (from.sin_family != AF_INET || !accepted(ntohl(from.sin_addr.s_addr), ntohs(from.sin_port)))
      continue;
    const auto size = static_cast<std::size_t>(got);
    if (size > sizeof(std::uint64_t)) {  // a letter
      if (size > Letter::kMaxBytes || (message.msg_flags & MSG_TRUNC) != 0) {
        malformed_.fetch_add(1, std::memory_order_relaxed);
        continue;
      }
      if (letters == nullptr) continue;
      Letter& letter = letters->emplace_back();
      letter.from = DoorbellAddress{ntohl(from.sin_addr.s_addr), ntohs(from.sin_port)};
      letter.bytes = size;
      std::memcpy(letter.data.data(), buffer, size);
      continue;
    }
    ++rings;
    std::uint64_t key = 0;
    if (size == sizeof key) std::memcpy(&key, buffer, sizeof key);
    if (!want_stamps || key == 0) continue;  // an unkeyed ring, or nobody asked for stamps
    for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
      timespec t{};
      std::memcpy(&t, CMSG_DATA(c), sizeof t);
      keyed->push_back(
          {key, static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9});
    }
  }
  return rings;
}

bool Doorbell::wait(std::chrono::microseconds timeout) const {
  auto sleep_for = [](std::chrono::nanoseconds d) {
    const auto ns = std::max<long long>(d.count(), 0);
    return timespec{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
  };
  if (fd_ < 0 || !address_.valid()) {
    const timespec t = sleep_for(timeout);
    nanosleep(&t, nullptr);
    return false;
  }
  // Datagrams from strangers wake the poll but are no ring: wait on until the timeout.
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const timespec t = sleep_for(deadline - std::chrono::steady_clock::now());
    pollfd p{fd_, POLLIN, 0};
    if (ppoll(&p, 1, &t, nullptr) <= 0) return false;
    if (drain() > 0) return true;
    if (std::chrono::steady_clock::now() >= deadline) return false;
  }
}

}  // namespace mcm
