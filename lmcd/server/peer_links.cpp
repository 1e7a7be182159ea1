#include "server/peer_links.h"

#include <spdlog/spdlog.h>

namespace mcm::lmcd {

namespace asio = boost::asio;
using asio::ip::tcp;

PeerLinks::PeerLinks(asio::io_context& io, const std::vector<LmcdPeer>& peers, spdlog::logger& log)
    : log_(log) {
  for (const auto& p : peers) {
    auto link = std::make_unique<Link>(io);
    auto colon = p.address.rfind(':');
    boost::system::error_code ec;
    auto address = asio::ip::make_address(p.address.substr(0, colon), ec);
    if (ec) {
      log_.error("peer {}: '{}' is not an IP address and port; it gets no status", p.host,
                 p.address);
      continue;
    }
    link->endpoint =
        tcp::endpoint(address, static_cast<unsigned short>(std::stoi(p.address.substr(colon + 1))));
    links_[p.host] = std::move(link);
  }
}

void PeerLinks::send_all(const std::vector<char>& frame) {
  for (auto& [host, link] : links_) {
    if (link->busy) continue;
    link->frame = frame;
    send(host, *link);
  }
}

void PeerLinks::send(const std::string& host, Link& link) {
  link.busy = true;
  auto write = [this, &host, &link] {
    asio::async_write(link.socket, asio::buffer(link.frame),
                      [this, &host, &link](boost::system::error_code ec, std::size_t) {
                        if (ec) return failed(host, link, ec);
                        link.busy = false;
                        if (link.unreachable_said) log_.info("peer {} reached again", host);
                        link.unreachable_said = false;
                      });
  };
  if (link.connected) return write();
  link.socket.async_connect(link.endpoint,
                            [this, &host, &link, write](boost::system::error_code ec) {
                              if (ec) return failed(host, link, ec);
                              link.connected = true;
                              write();
                            });
}

void PeerLinks::failed(const std::string& host, Link& link, const boost::system::error_code& ec) {
  boost::system::error_code ignored;
  link.socket.close(ignored);
  link.connected = false;
  link.busy = false;
  if (!link.unreachable_said)
    log_.warn("peer {} at {} unreachable ({}): it gets no status until it is reached again", host,
              link.endpoint.address().to_string(), ec.message());
  link.unreachable_said = true;
}

}  // namespace mcm::lmcd
