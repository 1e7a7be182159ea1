// mcmd's link to its host's lmcd (docs/lmcd.md): it registers this VM, reports the state of
// its incoming paths, and follows the VM when lmcd moves it to another host. It lives in the
// daemon's event loop, never on an MPI rank's path, and never holds the job up.
//
// Protocol (mcm/control/messages.h):
//  1. start(): connects to the lmcd the configuration names for this VM (an attempt gives up
//     after kConnectTimeout), sends Hello (with how long ago an lmcd moved this VM, so that
//     its cooldown follows it), and waits for Welcome, which says how often to report.
//  2. Registered, it sends an IncomingReport every report interval, and at once when the
//     report's signature (zones, helping detours) changes: it looks every quarter interval.
//  3. Frames from lmcd are checked as lmcd checks ours (mcm/control/seal.h): the header,
//     the MAC with the job's key, the replay guard. A frame that fails closes the link.
//  4. Refused, unreachable, closed: logged once (warn) with the reason ("carrying on with
//     detours only"), then retried every kRetry without further log lines until it
//     registers again, which is logged.
//  5. Moved: logged; the link reconnects to the new host's lmcd (Moved::to_address) and
//     calls on_moved, so that the runtime measures this VM's paths again.
//  6. stop(): Goodbye when registered, then it closes (after at most a second, written or
//     not); no timer or socket stays pending after that, so the event loop can end.
#pragma once

#include <array>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mcm/control/codec.h"
#include "mcm/control/seal.h"

namespace spdlog {
class logger;
}

namespace mcm::daemon {

class LmcdLink {
 public:
  static constexpr std::chrono::seconds kConnectTimeout{3};
  static constexpr std::chrono::seconds kRetry{10};

  struct Settings {
    std::string job;     ///< key id
    control::Key key{};  ///< the job's key
    std::string domain;  ///< this VM's libvirt domain (the frames' sender)
    std::string lmcd;    ///< ADDRESS:PORT of this VM's host's lmcd
    std::uint32_t vm_count = 0;
  };
  /// This VM's report now (its domain and window are set by the link).
  using MakeReport = std::function<control::IncomingReport()>;
  using OnMoved = std::function<void(const control::Moved&)>;

  LmcdLink(boost::asio::io_context& io, Settings settings, MakeReport make_report, OnMoved on_moved,
           std::shared_ptr<spdlog::logger> log);
  void start();
  void stop();

 private:
  void connect();
  void on_connected();
  void read_header();
  void read_rest();
  void on_frame(const control::Header& header, const std::vector<char>& payload);
  void send(control::Kind kind, const std::vector<char>& payload);
  void write_next();
  void report_tick();
  void send_report();
  /// Closes the connection; logs `why` unless a failure was logged since the last
  /// registration; retries after kRetry (not after stop()).
  void fail(const std::string& why);
  void close_socket();
  std::string host_of(const std::string& address) const;

  boost::asio::io_context& io_;
  Settings settings_;
  MakeReport make_report_;
  OnMoved on_moved_;
  std::shared_ptr<spdlog::logger> log_;
  boost::asio::ip::tcp::resolver resolver_;
  boost::asio::ip::tcp::socket socket_;
  boost::asio::steady_timer connect_timer_;
  boost::asio::steady_timer report_timer_;
  std::array<char, control::kHeaderBytes> header_bytes_{};
  control::Header pending_;
  std::vector<char> rest_;
  std::deque<std::shared_ptr<std::vector<char>>> out_;  ///< frames to write, in order
  control::ReplayGuard replay_{16};
  std::uint64_t sequence_;
  std::uint64_t generation_ = 0;  ///< of the connection: older callbacks are ignored
  bool stopped_ = false;
  bool registered_ = false;
  bool failure_logged_ = false;
  std::string lmcd_host_;  ///< the lmcd's host name, from its Welcome
  double report_interval_s_ = 1;
  int quarter_ = 0;
  std::string last_signature_;
  std::uint64_t reports_sent_ = 0;
  /// When lmcd last moved this VM (its Hello says how long ago: rule of Hello::moved_ago_s).
  std::optional<std::chrono::steady_clock::time_point> moved_at_;
};

}  // namespace mcm::daemon
