#include "hypervisor/libvirt_hypervisor.h"

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace mcm::lmcd {
namespace {

/// libvirt prints every error on stderr unless told otherwise; lmcd logs them itself.
void quiet(void*, virErrorPtr) {}

std::string last_error() {
  const char* m = virGetLastErrorMessage();
  return m != nullptr ? m : "unknown libvirt error";
}

/// Whether libvirt's error says the destination refused the domain (its hook or its
/// admission checks), rather than the migration failing on the way.
bool refusal(virErrorPtr e) {
  if (e == nullptr) return false;
  return e->code == VIR_ERR_HOOK_SCRIPT_FAILED || e->code == VIR_ERR_OPERATION_DENIED ||
         e->code == VIR_ERR_OPERATION_UNSUPPORTED;
}

/// A hook's refusal as libvirt words it carries the hook's whole command line and
/// environment ("Hook script execution failed: internal error: Child process (LC_ALL=C
/// PATH=... /etc/libvirt/hooks/qemu vm3 migrate begin -) unexpected exit status 1: REASON");
/// the log keeps the first words and the hook's own reason.
std::string shortened(const std::string& message) {
  const std::string child = "Child process (";
  const std::string status = ") unexpected exit status ";
  const auto from = message.find(child);
  const auto to = message.find(status, from == std::string::npos ? 0 : from);
  if (from == std::string::npos || to == std::string::npos) return message;
  return message.substr(0, from) + "the hook's " + message.substr(to + 2);
}

}  // namespace

const char* describe(MigrationResult::Outcome outcome) {
  switch (outcome) {
    case MigrationResult::Outcome::moved:
      return "moved";
    case MigrationResult::Outcome::refused:
      return "refused";
    case MigrationResult::Outcome::aborted:
      return "aborted";
    case MigrationResult::Outcome::failed:
      return "failed";
  }
  return "?";
}

struct LibvirtHypervisor::Connection {
  virConnectPtr conn = nullptr;
  ~Connection() {
    if (conn != nullptr) virConnectClose(conn);
  }
};

LibvirtHypervisor::LibvirtHypervisor(const std::string& uri)
    : connection_(std::make_unique<Connection>()), uri_(uri) {
  virSetErrorFunc(nullptr, quiet);
  connection_->conn = virConnectOpen(uri.c_str());
  if (connection_->conn == nullptr)
    throw std::runtime_error("cannot connect to libvirt at " + uri + ": " + last_error());
}

LibvirtHypervisor::~LibvirtHypervisor() = default;

std::vector<std::string> LibvirtHypervisor::running_domains() {
  virDomainPtr* domains = nullptr;
  int n = virConnectListAllDomains(connection_->conn, &domains, VIR_CONNECT_LIST_DOMAINS_ACTIVE);
  if (n < 0)
    throw std::runtime_error("listing the domains at " + uri_ + " failed: " + last_error());
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) {
    const char* name = virDomainGetName(domains[i]);
    if (name != nullptr) names.emplace_back(name);
    virDomainFree(domains[i]);
  }
  free(domains);  // NOLINT: allocated by libvirt with malloc
  return names;
}

MigrationResult LibvirtHypervisor::migrate(const MigrationRequest& request) {
  using Clock = std::chrono::steady_clock;
  MigrationResult result;
  auto start = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  virDomainPtr dom = virDomainLookupByName(connection_->conn, request.domain.c_str());
  std::string lookup_error = dom == nullptr ? last_error() : std::string();
  if (dom == nullptr && request.domain.size() == VIR_UUID_STRING_BUFLEN - 1)
    dom = virDomainLookupByUUIDString(connection_->conn, request.domain.c_str());
  if (dom == nullptr) {
    result.error = "no domain " + request.domain + " at " + uri_ + ": " + lookup_error;
    result.seconds = elapsed();
    return result;
  }
  virTypedParameterPtr params = nullptr;
  int nparams = 0, maxparams = 0;
  if (request.bandwidth_mib_s > 0)
    virTypedParamsAddULLong(&params, &nparams, &maxparams, VIR_MIGRATE_PARAM_BANDWIDTH,
                            request.bandwidth_mib_s);

  // The watchdog: aborts the migration job when it outlasts the timeout.
  std::mutex m;
  std::condition_variable cv;
  bool done = false, timed_out = false;
  std::thread watchdog([&] {
    std::unique_lock<std::mutex> lock(m);
    if (!cv.wait_for(lock, std::chrono::duration<double>(request.timeout_s),
                     [&] { return done; })) {
      timed_out = true;
      lock.unlock();
      virDomainAbortJob(dom);
    }
  });
  int rc = virDomainMigrateToURI3(dom, request.destination_uri.c_str(), params,
                                  static_cast<unsigned>(nparams),
                                  VIR_MIGRATE_LIVE | VIR_MIGRATE_PEER2PEER);
  virErrorPtr error = rc == 0 ? nullptr : virSaveLastError();
  {
    std::lock_guard<std::mutex> lock(m);
    done = true;
  }
  cv.notify_all();
  watchdog.join();
  virTypedParamsFree(params, nparams);
  virDomainFree(dom);
  result.seconds = elapsed();
  if (rc == 0) {
    result.outcome = MigrationResult::Outcome::moved;
    return result;
  }
  result.error =
      error != nullptr && error->message != nullptr ? error->message : "unknown libvirt error";
  if (timed_out) {
    result.outcome = MigrationResult::Outcome::aborted;
    result.error = "not done in " + std::to_string(static_cast<int>(request.timeout_s)) +
                   " s, aborted: " + result.error;
  } else {
    result.outcome =
        refusal(error) ? MigrationResult::Outcome::refused : MigrationResult::Outcome::failed;
    result.error = shortened(result.error);
  }
  virFreeError(error);
  return result;
}

}  // namespace mcm::lmcd
