#include "mcm/doorbell.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cstring>

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

bool Doorbell::open(bool listen, bool stamped) {
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
  const int on = 1;
  stamped_ = stamped && setsockopt(fd_, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) == 0;
  return true;
}

void Doorbell::ring(const DoorbellAddress& to, std::uint64_t key) const {
  if (fd_ < 0 || !to.valid()) return;
  sockaddr_in target{};
  target.sin_family = AF_INET;
  target.sin_addr.s_addr = htonl(to.ipv4);
  target.sin_port = htons(to.port);
  (void)sendto(fd_, &key, sizeof key, MSG_DONTWAIT, reinterpret_cast<sockaddr*>(&target),
               sizeof target);
}

void Doorbell::drain(std::vector<Ring>* keyed) const {
  if (fd_ < 0) return;
  if (keyed == nullptr || !stamped_) {
    char buffer[64];
    while (recv(fd_, buffer, sizeof buffer, MSG_DONTWAIT) > 0) {
    }
    return;
  }
  for (;;) {
    std::uint64_t key = 0;
    iovec data{&key, sizeof key};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
    msghdr message{};
    message.msg_iov = &data;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    const ssize_t got = recvmsg(fd_, &message, MSG_DONTWAIT);
    if (got < 0) return;
    if (got != static_cast<ssize_t>(sizeof key) || key == 0) continue;  // an unkeyed ring
    for (cmsghdr* c = CMSG_FIRSTHDR(&message); c != nullptr; c = CMSG_NXTHDR(&message, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
      timespec t{};
      std::memcpy(&t, CMSG_DATA(c), sizeof t);
      keyed->push_back(
          {key, static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9});
    }
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
