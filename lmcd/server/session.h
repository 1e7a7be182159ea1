// One connection to lmcd's control port (a daemon's or a peer lmcd's): reads sealed frames
// one after the other, passes each through the gate (the header alone first: a frame that
// announces more than 16 KiB is refused before any more is read) and hands the admitted
// ones to the controller; writes the controller's answers in order. A refused frame closes
// the connection. Rule 2-3 of mcm/control/messages.h. A connection that completes no frame
// for kIdle is closed: daemons report every second and peers send their status as often, so
// only a stalled or hostile client stays that quiet, holding one of the limited sessions.
#pragma once

#include <array>
#include <boost/asio.hpp>
#include <chrono>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "mcm/control/seal.h"

namespace mcm::lmcd {

class Controller;

class Session : public std::enable_shared_from_this<Session> {
 public:
  static constexpr std::chrono::seconds kIdle{30};
  Session(boost::asio::ip::tcp::socket socket, Controller& controller);
  void start();
  /// Queues `frame` (sealed) for writing.
  void send(std::vector<char> frame);
  void close();
  const std::string& peer() const { return peer_; }

 private:
  void read_header();
  void read_rest();
  void write_next();
  void arm_idle_timer();

  boost::asio::ip::tcp::socket socket_;
  boost::asio::steady_timer idle_;
  Controller& controller_;
  std::string peer_;
  std::array<char, control::kHeaderBytes> header_bytes_{};
  std::vector<char> rest_;
  control::Header pending_;  ///< the header of the frame being read
  std::deque<std::vector<char>> out_;
  bool closed_ = false;
};

/// Accepts connections on the control port, at most `max_sessions` at a time.
class ControlServer {
 public:
  ControlServer(boost::asio::io_context& io, const boost::asio::ip::tcp::endpoint& at,
                Controller& controller, std::size_t max_sessions = 256);
  void start();

 private:
  void accept();
  boost::asio::ip::tcp::acceptor acceptor_;
  Controller& controller_;
  std::size_t max_sessions_;
  std::vector<std::weak_ptr<Session>> sessions_;
};

}  // namespace mcm::lmcd
