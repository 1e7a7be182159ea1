#include "migration/lmcd_link.h"

#include <spdlog/spdlog.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include "migration/incoming_report.h"

namespace mcm::daemon {

namespace asio = boost::asio;
using asio::ip::tcp;
using control::Kind;

LmcdLink::LmcdLink(asio::io_context& io, Settings settings, MakeReport make_report,
                   OnMoved on_moved, std::shared_ptr<spdlog::logger> log)
    : io_(io),
      settings_(std::move(settings)),
      make_report_(std::move(make_report)),
      on_moved_(std::move(on_moved)),
      log_(std::move(log)),
      resolver_(io),
      socket_(io),
      connect_timer_(io),
      report_timer_(io),
      sequence_(static_cast<std::uint64_t>(control::wall_ns())) {}

void LmcdLink::start() {
  log_->info("lmcd: reporting {} (job {}) to the lmcd at {}", settings_.domain, settings_.job,
             settings_.lmcd);
  connect();
}

std::string LmcdLink::host_of(const std::string& address) const {
  return address.substr(0, address.rfind(':'));
}

void LmcdLink::connect() {
  if (stopped_) return;
  const std::uint64_t gen = ++generation_;
  const std::string& at = settings_.lmcd;
  const std::string port = at.substr(at.rfind(':') + 1);
  connect_timer_.expires_after(kConnectTimeout);
  connect_timer_.async_wait([this, gen](const boost::system::error_code& ec) {
    if (ec || gen != generation_ || registered_) return;
    fail("no answer within " + std::to_string(kConnectTimeout.count()) + " s");
  });
  resolver_.async_resolve(
      host_of(at), port,
      [this, gen](const boost::system::error_code& ec, const tcp::resolver::results_type& found) {
        if (gen != generation_ || stopped_) return;
        if (ec) return fail("cannot resolve " + settings_.lmcd + ": " + ec.message());
        asio::async_connect(
            socket_, found,
            [this, gen](const boost::system::error_code& error, const tcp::endpoint&) {
              if (gen != generation_ || stopped_) return;
              if (error) return fail(error.message());
              on_connected();
            });
      });
}

void LmcdLink::on_connected() {
  boost::system::error_code ec;
  const tcp::endpoint local = socket_.local_endpoint(ec);
  socket_.set_option(tcp::no_delay(true), ec);
  control::Hello hello{settings_.domain, ec ? "-" : local.address().to_string(),
                       settings_.vm_count};
  if (moved_at_)
    hello.moved_ago_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - *moved_at_).count();
  send(Kind::hello, control::write(hello));
  read_header();
}

void LmcdLink::read_header() {
  const std::uint64_t gen = generation_;
  asio::async_read(socket_, asio::buffer(header_bytes_),
                   [this, gen](const boost::system::error_code& ec, std::size_t n) {
                     if (gen != generation_ || stopped_) return;
                     if (ec) return fail("connection closed (" + ec.message() + ")");
                     auto h = control::read_header(header_bytes_.data(), n);
                     if (!h) return fail("a frame from lmcd refused: " + h.error);
                     pending_ = *h;
                     rest_.assign(h->payload_bytes + control::kMacBytes, '\0');
                     read_rest();
                   });
}

void LmcdLink::read_rest() {
  const std::uint64_t gen = generation_;
  asio::async_read(
      socket_, asio::buffer(rest_), [this, gen](const boost::system::error_code& ec, std::size_t) {
        if (gen != generation_ || stopped_) return;
        if (ec) return fail("connection closed (" + ec.message() + ")");
        std::string why =
            pending_.key_id != settings_.job
                ? "sealed with key '" + pending_.key_id + "', not the job's"
                : control::check_mac(header_bytes_.data(), pending_, rest_, settings_.key);
        if (why.empty()) why = replay_.accept(pending_, control::wall_ns());
        if (!why.empty()) return fail("a frame from lmcd refused: " + why);
        const std::vector<char> payload(rest_.begin(),
                                        rest_.begin() + static_cast<long>(pending_.payload_bytes));
        on_frame(pending_, payload);
        if (gen == generation_ && !stopped_) read_header();
      });
}

void LmcdLink::on_frame(const control::Header& header, const std::vector<char>& payload) {
  if (header.kind == Kind::welcome) {
    auto w = control::read_welcome(payload);
    if (!w) return fail("a welcome refused: " + w.error);
    registered_ = true;
    failure_logged_ = false;
    lmcd_host_ = w->host;
    report_interval_s_ = std::max(0.1, w->report_interval_s);
    log_->info("lmcd: {} registered with the lmcd of {} at {}; reporting every {:.1f} s",
               settings_.domain, lmcd_host_, settings_.lmcd, report_interval_s_);
    quarter_ = 0;
    send_report();
    report_tick();
  } else if (header.kind == Kind::refused) {
    auto r = control::read_refused(payload);
    fail("refused: " + (r ? r->reason : r.error));
  } else if (header.kind == Kind::moved) {
    auto m = control::read_moved(payload);
    if (!m || m->domain != settings_.domain)
      return fail("a moved notice refused: " + (m ? "it names " + m->domain : m.error));
    log_->info("lmcd: {} was live-migrated from {} to {}; registering with the lmcd at {}",
               settings_.domain, lmcd_host_, m->to_host, m->to_address);
    registered_ = false;
    close_socket();
    if (!m->to_address.empty()) settings_.lmcd = m->to_address;
    moved_at_ = std::chrono::steady_clock::now();
    if (on_moved_) on_moved_(*m);
    connect();
  } else {
    fail(std::string("an unexpected ") + control::describe(header.kind) + " from lmcd");
  }
}

void LmcdLink::send(Kind kind, const std::vector<char>& payload) {
  out_.push_back(std::make_shared<std::vector<char>>(
      control::seal(kind, settings_.job, settings_.domain, ++sequence_, control::wall_ns(), payload,
                    settings_.key)));
  if (out_.size() == 1) write_next();
}

void LmcdLink::write_next() {
  const std::uint64_t gen = generation_;
  auto frame = out_.front();  // the handler keeps the bytes alive whatever happens to out_
  asio::async_write(socket_, asio::buffer(*frame),
                    [this, gen, frame](const boost::system::error_code& ec, std::size_t) {
                      if (gen != generation_) return;
                      if (ec) {
                        if (stopped_)
                          close_socket();
                        else
                          fail("sending failed: " + ec.message());
                        return;
                      }
                      out_.pop_front();
                      if (!out_.empty())
                        write_next();
                      else if (stopped_)
                        close_socket();  // the goodbye went
                    });
}

void LmcdLink::report_tick() {
  const std::uint64_t gen = generation_;
  report_timer_.expires_after(
      std::chrono::microseconds(static_cast<long>(report_interval_s_ * 1e6 / 4)));
  report_timer_.async_wait([this, gen](const boost::system::error_code& ec) {
    if (ec || gen != generation_ || stopped_ || !registered_) return;
    quarter_ = (quarter_ + 1) % 4;
    if (quarter_ == 0) {
      send_report();
    } else {
      control::IncomingReport r = make_report_();
      if (report_signature(r) != last_signature_) send_report();
    }
    report_tick();
  });
}

void LmcdLink::send_report() {
  control::IncomingReport r = make_report_();
  r.domain = settings_.domain;
  r.window_s = report_interval_s_;
  last_signature_ = report_signature(r);
  if (out_.size() > 8) return;  // lmcd does not read: never let reports pile up
  send(Kind::incoming_report, control::write(r));
  ++reports_sent_;
}

void LmcdLink::fail(const std::string& why) {
  const bool was_registered = registered_;
  registered_ = false;
  close_socket();
  if (!failure_logged_) {
    failure_logged_ = true;
    log_->warn("lmcd: {} at {}{}: {}; carrying on with detours only (retrying every {} s)",
               was_registered ? "lost the lmcd" : "cannot register with the lmcd", settings_.lmcd,
               lmcd_host_.empty() ? "" : " (" + lmcd_host_ + ")", why,
               std::chrono::duration_cast<std::chrono::seconds>(kRetry).count());
  }
  if (stopped_) return;
  const std::uint64_t gen = generation_;
  connect_timer_.expires_after(kRetry);
  connect_timer_.async_wait([this, gen](const boost::system::error_code& ec) {
    if (!ec && gen == generation_) connect();
  });
}

void LmcdLink::close_socket() {
  ++generation_;  // every pending callback of this connection is stale now
  out_.clear();
  boost::system::error_code ignored;
  resolver_.cancel();
  report_timer_.cancel();
  connect_timer_.cancel();
  socket_.shutdown(tcp::socket::shutdown_both, ignored);
  socket_.close(ignored);
}

void LmcdLink::stop() {
  if (stopped_) return;
  stopped_ = true;
  report_timer_.cancel();
  resolver_.cancel();
  if (registered_ && socket_.is_open()) {
    // Goodbye after what is queued, then write_next() closes; a failed write closes too.
    send(Kind::goodbye, control::write(control::Goodbye{settings_.domain}));
    // An lmcd that stopped reading (frozen, its buffers full) must not hold the daemon's
    // exit: whatever is not written in a second is dropped with the connection.
    const std::uint64_t gen = generation_;
    connect_timer_.expires_after(std::chrono::seconds(1));
    connect_timer_.async_wait([this, gen](const boost::system::error_code& ec) {
      if (!ec && gen == generation_) close_socket();
    });
    log_->info("lmcd: {} said goodbye to the lmcd of {} ({} reports sent)", settings_.domain,
               lmcd_host_, reports_sent_);
    return;
  }
  close_socket();
}

}  // namespace mcm::daemon
