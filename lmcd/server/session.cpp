#include "server/session.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "controller.h"

namespace mcm::lmcd {

namespace asio = boost::asio;
using asio::ip::tcp;

Session::Session(tcp::socket socket, Controller& controller)
    : socket_(std::move(socket)), idle_(socket_.get_executor()), controller_(controller) {}

void Session::start() {
  boost::system::error_code ec;
  auto ep = socket_.remote_endpoint(ec);
  peer_ = ec ? "?" : ep.address().to_string();
  arm_idle_timer();
  read_header();
}

void Session::arm_idle_timer() {
  idle_.expires_after(kIdle);
  auto self = shared_from_this();
  idle_.async_wait([this, self](boost::system::error_code ec) {
    if (ec || closed_) return;  // re-armed, or closed
    controller_.refused(peer_, "closed a connection from " + peer_ + ": no complete frame in " +
                                   std::to_string(kIdle.count()) + " s");
    close();
  });
}

void Session::close() {
  if (closed_) return;
  closed_ = true;
  idle_.cancel();
  boost::system::error_code ec;
  socket_.shutdown(tcp::socket::shutdown_both, ec);
  socket_.close(ec);
}

void Session::read_header() {
  auto self = shared_from_this();
  asio::async_read(socket_, asio::buffer(header_bytes_),
                   [this, self](boost::system::error_code ec, std::size_t n) {
                     if (ec) return close();
                     auto h = controller_.gate().header(header_bytes_.data(), n);
                     if (!h) {
                       controller_.refused(peer_, h.error + " (from " + peer_ + ")");
                       return close();
                     }
                     rest_.assign(h->payload_bytes + control::kMacBytes, '\0');
                     pending_ = *h;
                     read_rest();
                   });
}

void Session::read_rest() {
  auto self = shared_from_this();
  asio::async_read(socket_, asio::buffer(rest_),
                   [this, self](boost::system::error_code ec, std::size_t) {
                     if (ec) return close();
                     auto admitted = controller_.gate().admit(pending_, header_bytes_.data(), rest_,
                                                              peer_, control::wall_ns());
                     if (!admitted) {
                       controller_.refused(peer_, admitted.error);
                       return close();
                     }
                     arm_idle_timer();
                     controller_.on_frame(self, *admitted);
                     if (!closed_) read_header();
                   });
}

void Session::send(std::vector<char> frame) {
  if (closed_) return;
  out_.push_back(std::move(frame));
  if (out_.size() == 1) write_next();
}

void Session::write_next() {
  auto self = shared_from_this();
  asio::async_write(socket_, asio::buffer(out_.front()),
                    [this, self](boost::system::error_code ec, std::size_t) {
                      if (ec) return close();
                      out_.pop_front();
                      if (!out_.empty()) write_next();
                    });
}

ControlServer::ControlServer(asio::io_context& io, const tcp::endpoint& at, Controller& controller,
                             std::size_t max_sessions)
    : acceptor_(io, at), controller_(controller), max_sessions_(max_sessions) {}

void ControlServer::start() {
  accept();
}

void ControlServer::accept() {
  acceptor_.async_accept([this](boost::system::error_code ec, tcp::socket socket) {
    if (!ec) {
      boost::system::error_code ignored;
      sessions_.erase(std::remove_if(sessions_.begin(), sessions_.end(),
                                     [](const std::weak_ptr<Session>& s) { return s.expired(); }),
                      sessions_.end());
      if (sessions_.size() >= max_sessions_) {
        controller_.refused(socket.remote_endpoint(ignored).address().to_string(),
                            "refused a connection: " + std::to_string(sessions_.size()) +
                                " open already (the limit)");
      } else {
        auto s = std::make_shared<Session>(std::move(socket), controller_);
        sessions_.push_back(s);
        s->start();
      }
    }
    accept();
  });
}

}  // namespace mcm::lmcd
