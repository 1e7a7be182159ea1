// lmcd's links to its peers: every status it sends goes to every peer lmcd (host statuses,
// sealed with the operators' key). A link connects when it has something to send and
// keeps its connection; a peer that cannot be reached loses that status (the next one
// follows a status interval later) and is logged once until it is reached again.
#pragma once

#include <boost/asio.hpp>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "mcm/lmcd_config.h"

namespace spdlog {
class logger;
}

namespace mcm::lmcd {

class PeerLinks {
 public:
  PeerLinks(boost::asio::io_context& io, const std::vector<LmcdPeer>& peers, spdlog::logger& log);
  /// Sends `frame` to every peer (dropped for a peer whose previous one is still going).
  void send_all(const std::vector<char>& frame);

 private:
  struct Link {
    explicit Link(boost::asio::io_context& io) : socket(io) {}
    boost::asio::ip::tcp::socket socket;
    boost::asio::ip::tcp::endpoint endpoint;
    bool connected = false, busy = false, unreachable_said = false;
    std::vector<char> frame;
  };
  void send(const std::string& host, Link& link);
  void failed(const std::string& host, Link& link, const boost::system::error_code& ec);

  spdlog::logger& log_;
  std::map<std::string, std::unique_ptr<Link>> links_;
};

}  // namespace mcm::lmcd
