// lmcd: the live-migration controller, one per hypervisor host (docs/lmcd.md).
//
// Usage: lmcd --config FILE [--dry-run] [--log-level LEVEL] [--check]
// It reads its configuration (errors name the file, line and column: exit 2), connects to
// its host's libvirt (exit 1 when it cannot), listens on its control port, and runs until
// SIGTERM or SIGINT (exit 0). --check stops after the configuration and libvirt, saying
// what it found. Logs go to stderr (systemd's journal under lmcd.service).
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <boost/asio.hpp>
#include <cstdio>
#include <exception>

#include "controller.h"
#include "hypervisor/libvirt_hypervisor.h"
#include "mcm/error.h"
#include "mcm/lmcd_config.h"
#include "server/session.h"

int main(int argc, char** argv) {
  CLI::App app("lmcd: MCM's live-migration controller, one per hypervisor host (docs/lmcd.md)",
               "lmcd");
  std::string config_path, level = "info";
  bool dry_run = false, check = false;
  app.add_option("--config", config_path, "the host's lmcd configuration (YAML; see docs/lmcd.md)")
      ->required();
  app.add_flag("--dry-run", dry_run, "decide and log, never migrate (overrides migration.dry_run)");
  app.add_option("--log-level", level, "trace, debug, info, warn or error")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error"}));
  app.add_flag("--check", check,
               "read the configuration, connect to libvirt, say what was found, exit");
  app.set_version_flag("--version", MCM_VERSION);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;  // usage errors: 2, as every MCM tool
  }

  mcm::LmcdConfig config;
  try {
    config = mcm::load_lmcd_config(config_path);
  } catch (const mcm::ConfigError& e) {
    std::fprintf(stderr, "lmcd: %s\n", e.what());
    return 2;
  }
  if (dry_run) config.dry_run = true;
  auto log = spdlog::stderr_color_mt("lmcd");
  log->set_pattern("%Y-%m-%dT%H:%M:%S.%f %l lmcd[" + config.host + "]: %v");
  log->set_level(spdlog::level::from_str(level));

  std::unique_ptr<mcm::lmcd::LibvirtHypervisor> hypervisor;
  try {
    hypervisor = std::make_unique<mcm::lmcd::LibvirtHypervisor>(config.libvirt_uri);
  } catch (const std::exception& e) {
    log->error("{}", e.what());
    return 1;
  }
  if (check) {
    auto domains = hypervisor->running_domains();
    std::printf(
        "lmcd: %s: host %s, libvirt %s (%zu domains running), %zu peers, %zu jobs, control port "
        "%s:%d\n",
        config_path.c_str(), config.host.c_str(), config.libvirt_uri.c_str(), domains.size(),
        config.peers.size(), config.jobs.size(), config.listen_address.c_str(), config.listen_port);
    return 0;
  }

  boost::asio::io_context io;
  try {
    mcm::lmcd::Controller controller(io, config, *hypervisor, log);
    boost::asio::ip::tcp::endpoint at(boost::asio::ip::make_address(config.listen_address),
                                      static_cast<unsigned short>(config.listen_port));
    mcm::lmcd::ControlServer server(io, at, controller);
    boost::asio::signal_set signals(io, SIGINT, SIGTERM);
    signals.async_wait([&](const boost::system::error_code&, int signal) {
      log->info("signal {}: stopping", signal);
      io.stop();
    });
    server.start();
    controller.start();
    log->info("listening on {}:{}", config.listen_address, config.listen_port);
    io.run();
  } catch (const std::exception& e) {
    log->error("{}", e.what());
    return 1;
  }
  return 0;
}
