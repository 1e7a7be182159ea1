#include "mcm/lmcd_config.h"

#include <yaml-cpp/yaml.h>

#include <set>

#include "mcm/control/codec.h"
#include "mcm/error.h"
#include "yaml_document.h"

namespace mcm {
namespace {

using yaml::fail;

std::string name(const std::string& file, const YAML::Node& node, const std::string& path) {
  std::string s = yaml::text(file, node, path);
  if (!control::valid_name(s) || s.size() > 31)
    fail(file, node.Mark(),
         path + " must be a name of 1..31 characters of [A-Za-z0-9._:-] (got '" + s + "')");
  return s;
}

control::Key key_file(const std::string& file, const YAML::Node& node, const std::string& path,
                      const std::string& base_dir) {
  std::string p = yaml::text(file, node, path);
  if (!p.empty() && p[0] != '/') p = base_dir + "/" + p;
  std::string content;
  try {
    content = yaml::read_file(p, "key file");
  } catch (const ConfigError& e) {
    fail(file, node.Mark(), path + ": " + e.what());
  }
  auto key = control::parse_key(content);
  if (!key) fail(file, node.Mark(), path + ": key file '" + p + "': " + key.error);
  return *key;
}

bool flag(const std::string& file, const YAML::Node& node, const std::string& path) {
  if (node.IsScalar() && (node.Scalar() == "true" || node.Scalar() == "false"))
    return node.Scalar() == "true";
  fail(file, node.Mark(), path + " must be true or false");
}

}  // namespace

LmcdConfig parse_lmcd_config(const std::string& text, const std::string& file,
                             const std::string& base_dir) {
  YAML::Node root = yaml::parse_document(text, file);
  if (!root.IsMap())
    fail(file, root.Mark(),
         "an lmcd configuration is a map (host, listen, operator_key_file, ...)");
  yaml::check_keys(
      file, root, "",
      {"host", "listen", "libvirt_uri", "operator_key_file", "capacity", "peers", "jobs",
       "detection", "decision", "migration", "report_interval_s", "status_interval_s"},
      {"host", "listen", "operator_key_file"});
  LmcdConfig c;
  c.host = name(file, root["host"], "host");
  std::tie(c.listen_address, c.listen_port) = yaml::endpoint(file, root["listen"], "listen");
  if (root["libvirt_uri"]) c.libvirt_uri = yaml::text(file, root["libvirt_uri"], "libvirt_uri");
  c.operator_key = key_file(file, root["operator_key_file"], "operator_key_file", base_dir);
  if (root["capacity"])
    c.capacity =
        static_cast<unsigned>(yaml::integer(file, root["capacity"], "capacity", 0, 100000));
  std::set<std::string> hosts{c.host};
  if (YAML::Node peers = root["peers"]) {
    yaml::expect_list(file, peers, "peers", " of {host, address, libvirt_uri}");
    for (std::size_t i = 0; i < peers.size(); ++i) {
      std::string at = "peers[" + std::to_string(i) + "]";
      const YAML::Node& p = peers[i];
      yaml::expect_map(file, p, at, " {host, address, libvirt_uri}");
      yaml::check_keys(file, p, at, {"host", "address", "libvirt_uri"},
                       {"host", "address", "libvirt_uri"});
      LmcdPeer peer;
      peer.host = name(file, p["host"], at + ".host");
      if (!hosts.insert(peer.host).second)
        fail(file, p["host"].Mark(),
             at + ".host: " + peer.host + " is named twice (or is this host)");
      yaml::endpoint(file, p["address"], at + ".address");
      peer.address = p["address"].Scalar();
      peer.libvirt_uri = yaml::text(file, p["libvirt_uri"], at + ".libvirt_uri");
      c.peers.push_back(std::move(peer));
    }
  }
  std::set<std::string> ids, domains;
  if (YAML::Node jobs = root["jobs"]) {
    yaml::expect_list(file, jobs, "jobs", " of {id, key_file, domains}");
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      std::string at = "jobs[" + std::to_string(i) + "]";
      const YAML::Node& j = jobs[i];
      yaml::expect_map(file, j, at, " {id, key_file, domains}");
      yaml::check_keys(file, j, at, {"id", "key_file", "domains"}, {"id", "key_file", "domains"});
      LmcdJob job;
      job.id = name(file, j["id"], at + ".id");
      if (job.id == control::kOperatorKeyId || !ids.insert(job.id).second)
        fail(file, j["id"].Mark(),
             at + ".id: '" + job.id + "' is taken (named twice, or the operators' key id)");
      job.key = key_file(file, j["key_file"], at + ".key_file", base_dir);
      yaml::expect_map(file, j["domains"], at + ".domains", " of DOMAIN: ADDRESS");
      for (const auto& d : j["domains"]) {
        std::string dn = name(file, d.first, at + ".domains");
        if (!domains.insert(dn).second)
          fail(file, d.first.Mark(),
               at + ".domains: " + dn + " belongs to two jobs (or is named twice)");
        job.domains[dn] = yaml::text(file, d.second, at + ".domains." + dn);
      }
      c.jobs.push_back(std::move(job));
    }
  }
  if (YAML::Node d = root["detection"]) {
    yaml::expect_map(file, d, "detection");
    yaml::check_keys(file, d, "detection",
                     {"source_fraction", "min_excess_us", "guest_fraction", "min_guests",
                      "sustain_s", "report_ttl_s", "source_hold_s", "link_check"});
    if (d["source_fraction"])
      c.source_fraction =
          yaml::number(file, d["source_fraction"], "detection.source_fraction", 0, 0.99);
    if (d["min_excess_us"])
      c.min_excess_us = yaml::number(file, d["min_excess_us"], "detection.min_excess_us", 1, 1e9);
    if (d["guest_fraction"])
      c.guest_fraction =
          yaml::number(file, d["guest_fraction"], "detection.guest_fraction", 0, 0.99);
    if (d["min_guests"])
      c.min_guests =
          static_cast<int>(yaml::integer(file, d["min_guests"], "detection.min_guests", 1, 10000));
    if (d["sustain_s"])
      c.sustain_s = yaml::number(file, d["sustain_s"], "detection.sustain_s", 0, 3600);
    if (d["report_ttl_s"])
      c.report_ttl_s = yaml::number(file, d["report_ttl_s"], "detection.report_ttl_s", 0.1, 3600);
    if (d["source_hold_s"])
      c.source_hold_s = yaml::number(file, d["source_hold_s"], "detection.source_hold_s", 0, 3600);
    if (d["link_check"]) c.link_check = flag(file, d["link_check"], "detection.link_check");
  }
  if (YAML::Node d = root["decision"]) {
    yaml::expect_map(file, d, "decision");
    yaml::check_keys(file, d, "decision", {"cooldown_s", "status_ttl_s"});
    if (d["cooldown_s"])
      c.cooldown_s = yaml::number(file, d["cooldown_s"], "decision.cooldown_s", 0, 86400);
    if (d["status_ttl_s"])
      c.status_ttl_s = yaml::number(file, d["status_ttl_s"], "decision.status_ttl_s", 0.1, 3600);
  }
  if (YAML::Node m = root["migration"]) {
    yaml::expect_map(file, m, "migration");
    yaml::check_keys(file, m, "migration", {"bandwidth_mib_s", "timeout_s", "dry_run"});
    if (m["bandwidth_mib_s"])
      c.bandwidth_mib_s = static_cast<unsigned long>(
          yaml::integer(file, m["bandwidth_mib_s"], "migration.bandwidth_mib_s", 0, 1000000));
    if (m["timeout_s"])
      c.timeout_s = yaml::number(file, m["timeout_s"], "migration.timeout_s", 1, 86400);
    if (m["dry_run"]) c.dry_run = flag(file, m["dry_run"], "migration.dry_run");
  }
  if (root["report_interval_s"])
    c.report_interval_s =
        yaml::number(file, root["report_interval_s"], "report_interval_s", 0.05, 3600);
  if (root["status_interval_s"])
    c.status_interval_s =
        yaml::number(file, root["status_interval_s"], "status_interval_s", 0.05, 3600);
  return c;
}

LmcdConfig load_lmcd_config(const std::string& path) {
  std::string text = yaml::read_file(path, "lmcd configuration");
  auto slash = path.rfind('/');
  return parse_lmcd_config(text, path, slash == std::string::npos ? "." : path.substr(0, slash));
}

}  // namespace mcm
