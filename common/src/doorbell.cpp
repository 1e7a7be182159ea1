#include "mcm/doorbell.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

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

}  // namespace

Doorbell::~Doorbell() {
  if (fd_ >= 0) close(fd_);
}

bool Doorbell::open(bool listen) {
  fd_ = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return false;
  if (!listen) return true;
  sockaddr_in any{};
  any.sin_family = AF_INET;
  any.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t length = sizeof any;
  if (bind(fd_, reinterpret_cast<sockaddr*>(&any), sizeof any) != 0 ||
      getsockname(fd_, reinterpret_cast<sockaddr*>(&any), &length) != 0) {
    close(fd_);
    fd_ = -1;
    return false;
  }
  address_ = DoorbellAddress{local_ipv4(), ntohs(any.sin_port)};
  return true;
}

void Doorbell::ring(const DoorbellAddress& to) const {
  if (fd_ < 0 || !to.valid()) return;
  sockaddr_in target{};
  target.sin_family = AF_INET;
  target.sin_addr.s_addr = htonl(to.ipv4);
  target.sin_port = htons(to.port);
  const char byte = 1;
  (void)sendto(fd_, &byte, 1, MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&target), sizeof target);
}

void Doorbell::drain() const {
  char buffer[64];
  while (fd_ >= 0 && recv(fd_, buffer, sizeof buffer, MSG_DONTWAIT) > 0) {
  }
}

bool Doorbell::wait(std::chrono::microseconds timeout) const {
  const auto us = timeout.count();
  const timespec t{static_cast<time_t>(us / 1000000), static_cast<long>(us % 1000000) * 1000};
  if (fd_ < 0 || !address_.valid()) {
    nanosleep(&t, nullptr);
    return false;
  }
  pollfd p{fd_, POLLIN, 0};
  if (ppoll(&p, 1, &t, nullptr) <= 0) return false;
  drain();
  return true;
}

}  // namespace mcm
