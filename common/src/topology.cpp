#include "mcm/topology.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <iomanip>
#include <set>
#include <sstream>

#include "mcm/error.h"
#include "yaml_document.h"

namespace mcm {

Matrix empty_matrix(std::size_t n) {
  return Matrix(n, std::vector<double>(n, kNotMeasured));
}

bool Detour::operator==(const Detour& o) const {
  auto same = [](double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; };
  return via == o.via && same(latency_us, o.latency_us) && robustness == o.robustness &&
         beats_direct == o.beats_direct;
}

int Topology::size_index(long long size) const {
  auto it = std::find(sizes.begin(), sizes.end(), size);
  return it == sizes.end() ? -1 : static_cast<int>(it - sizes.begin());
}

namespace {

/// alpha + size / beta of one path of one fit; NaN when the fit has no figures for it.
double linear(const Matrix& alpha, const Matrix& beta, int source, int destination,
              long long size) {
  if (alpha.empty() || beta.empty()) return kNotMeasured;
  const double a = alpha[source][destination];
  const double b = beta[source][destination];
  if (!measured(a) || !measured(b) || b <= 0) return kNotMeasured;
  return a + static_cast<double>(size) / b;
}

}  // namespace

double Topology::predict_us(int source, int destination, long long size) const {
  for (const FitPiece& piece : pieces) {
    if (size > piece.up_to_bytes) continue;
    const double us = linear(piece.alpha_us, piece.beta_bytes_per_us, source, destination, size);
    if (measured(us)) return us;
  }
  return linear(alpha_us, beta_bytes_per_us, source, destination, size);
}

// ---- Writing ----

namespace {

/// A number with 3 significant decimals at most, ~ for NaN: short, diffable files.
std::string format_number(double value) {
  if (!measured(value)) return "~";
  std::ostringstream out;
  out.imbue(std::locale::classic());
  out << std::setprecision(value >= 1000 ? 10 : 6) << (std::round(value * 1000) / 1000);
  return out.str();
}

}  // namespace

std::string to_yaml(const Topology& t) {
  // Written by hand rather than with YAML::Emitter: rows on one line each, ~ for holes
  // and a few comments make the file readable in a terminal.
  std::ostringstream o;
  o.imbue(std::locale::classic());
  auto row = [&](const std::vector<double>& r) {
    o << "[";
    for (std::size_t j = 0; j < r.size(); ++j) o << (j ? ", " : "") << format_number(r[j]);
    o << "]";
  };
  auto matrix = [&](const Matrix& m, const std::string& indent) {
    for (const auto& r : m) {
      o << indent << "- ";
      row(r);
      o << "\n";
    }
  };
  auto quoted = [](const std::string& s) {
    YAML::Emitter e;
    e << YAML::DoubleQuoted << s;
    return std::string(e.c_str());
  };
  o << "# mcm-probe: the virtual cluster's latency matrix, sensibility matrix and\n"
       "# alternative path table (format: docs/probe.md). Indices are positions in hosts.\n";
  o << "format: " << Topology::kFormat << "\n";
  o << "hosts: [";
  for (std::size_t i = 0; i < t.hosts.size(); ++i) o << (i ? ", " : "") << quoted(t.hosts[i]);
  o << "]\n";
  o << "date: " << quoted(t.date) << "\n";
  o << "partial: " << (t.partial ? "true" : "false") << "\n";
  o << "skipped:" << (t.skipped.empty() ? " []" : "") << "\n";
  for (const auto& s : t.skipped) o << "  - " << quoted(s) << "\n";
  o << "sizes: [";
  for (std::size_t k = 0; k < t.sizes.size(); ++k) o << (k ? ", " : "") << t.sizes[k];
  o << "]\n";
  o << "reference_size: " << t.reference_size << "\n";
  o << "latency_us:\n";
  for (std::size_t k = 0; k < t.sizes.size(); ++k) {
    o << "  " << t.sizes[k] << ":\n";
    matrix(t.latency_us[k], "    ");
  }
  o << "spread_us:\n";
  for (std::size_t k = 0; k < t.sizes.size(); ++k) {
    o << "  " << t.sizes[k] << ":\n";
    matrix(t.spread_us[k], "    ");
  }
  if (!t.alpha_us.empty()) {
    o << "fit:  # latency_us(size) = alpha_us + size / beta_bytes_per_us\n  alpha_us:"
      << (t.pieces.empty() ? "" : "  # sizes above the last piece's bound") << "\n";
    matrix(t.alpha_us, "    ");
    o << "  beta_bytes_per_us:\n";
    matrix(t.beta_bytes_per_us, "    ");
    if (!t.pieces.empty())
      o << "  pieces:  # each: the sizes up to up_to_bytes, above the previous bound\n";
    for (const FitPiece& piece : t.pieces) {
      o << "    - up_to_bytes: " << piece.up_to_bytes << "\n      alpha_us:\n";
      matrix(piece.alpha_us, "        ");
      o << "      beta_bytes_per_us:\n";
      matrix(piece.beta_bytes_per_us, "        ");
    }
  }
  if (t.sensibility) {
    o << "sensibility:\n";
    for (std::size_t i = 0; i < t.sensibility->size(); ++i) {
      const auto& r = (*t.sensibility)[i];
      o << "  - [";
      for (std::size_t j = 0; j < r.size(); ++j)
        o << (j ? ", " : "") << (i == j ? std::string("~") : std::to_string(r[j]));
      o << "]\n";
    }
    const SensibilityInfo& info = t.sensibility_info;
    o << "sensibility_info:\n  factor: " << format_number(info.factor) << "\n  size: " << info.size
      << "\n  injections: [";
    for (std::size_t k = 0; k < info.injections.size(); ++k)
      o << (k ? ", " : "") << "[" << info.injections[k].first << ", " << info.injections[k].second
        << "]";
    o << "]\n  possible: " << info.possible << "\n";
  } else {
    o << "sensibility: ~\n";
  }
  if (!t.alternatives.empty()) {
    o << "alternatives:\n";
    for (const auto& by_destination : t.alternatives) {
      o << "  - [";
      for (std::size_t d = 0; d < by_destination.size(); ++d) {
        o << (d ? ", " : "") << "[";
        for (std::size_t k = 0; k < by_destination[d].size(); ++k)
          o << (k ? ", " : "") << by_destination[d][k];
        o << "]";
      }
      o << "]\n";
    }
  }
  if (!t.detours.empty()) {
    o << "detours:\n";
    for (const auto& by_destination : t.detours) {
      o << "  -\n";
      for (const auto& list : by_destination) {
        o << "    -" << (list.empty() ? " []" : "") << "\n";
        for (const Detour& d : list)
          o << "      - {via: " << d.via << ", latency_us: " << format_number(d.latency_us)
            << ", robustness: " << d.robustness
            << ", beats_direct: " << (d.beats_direct ? "true" : "false") << "}\n";
      }
    }
  }
  return o.str();
}

// ---- Reading ----

namespace {

constexpr double kNoLimit = std::numeric_limits<double>::infinity();

struct Reader {
  const std::string& file;
  std::size_t n = 0;

  [[noreturn]] void fail(const YAML::Node& node, const std::string& message) const {
    yaml::fail(file, node.Mark(), message);
  }

  int index(const YAML::Node& node, const std::string& path) const {
    return static_cast<int>(yaml::integer(file, node, path, 0, static_cast<long long>(n) - 1));
  }

  /// N x N of numbers >= 0 or ~; the diagonal must be ~ when `null_diagonal`.
  Matrix matrix(const YAML::Node& node, const std::string& path, double hi) const {
    const std::string shape =
        std::to_string(n) + " rows of " + std::to_string(n) + " values (one per host)";
    yaml::expect_list(file, node, path, " of " + shape);
    if (node.size() != n)
      fail(node, path + " has " + std::to_string(node.size()) + " rows, needs " + shape);
    Matrix m = empty_matrix(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::string row_path = path + "[" + std::to_string(i) + "]";
      const YAML::Node& r = node[i];
      yaml::expect_list(file, r, row_path);
      if (r.size() != n)
        fail(r, row_path + " has " + std::to_string(r.size()) + " values, needs " +
                    std::to_string(n) + " (one per host)");
      for (std::size_t j = 0; j < n; ++j) {
        if (r[j].IsNull()) continue;
        const std::string cell = row_path + "[" + std::to_string(j) + "]";
        m[i][j] = yaml::number(file, r[j], cell, 0, hi);
        if (i == j) fail(r[j], cell + " is a host's path to itself and must be ~");
      }
    }
    return m;
  }

  /// {size: matrix} for every size, in the order of `sizes`.
  std::vector<Matrix> per_size(const YAML::Node& node, const std::string& path,
                               const std::vector<long long>& sizes) const {
    yaml::expect_map(file, node, path, " of size: matrix");
    std::vector<Matrix> out(sizes.size());
    std::vector<bool> seen(sizes.size());
    for (const auto& entry : node) {
      const YAML::Node& key = entry.first;
      const long long size = yaml::integer(file, key, path + " key", 1, 1LL << 40);
      auto it = std::find(sizes.begin(), sizes.end(), size);
      if (it == sizes.end()) fail(key, path + ": size " + key.Scalar() + " is not in sizes");
      const std::size_t k = static_cast<std::size_t>(it - sizes.begin());
      if (seen[k]) fail(key, path + ": size " + key.Scalar() + " given twice");
      seen[k] = true;
      out[k] = matrix(entry.second, path + "." + key.Scalar(), kNoLimit);
    }
    for (std::size_t k = 0; k < sizes.size(); ++k)
      if (!seen[k]) fail(node, path + " has no matrix for size " + std::to_string(sizes[k]));
    return out;
  }
};

}  // namespace

Topology parse_topology(const std::string& text, const std::string& file) {
  const YAML::Node root = yaml::parse_document(text, file);
  if (!root.IsMap())
    yaml::fail(file, root.Mark(),
               "not an mcm-probe topology: the top level must be a map (format: " +
                   std::string(Topology::kFormat) + ", hosts: ..., latency_us: ...)");
  yaml::check_keys(
      file, root, "",
      {"format", "hosts", "date", "partial", "skipped", "sizes", "reference_size", "latency_us",
       "spread_us", "fit", "sensibility", "sensibility_info", "alternatives", "detours"},
      {"format", "hosts", "sizes", "latency_us"});
  Topology t;
  const std::string format = yaml::text(file, root["format"], "format");
  if (format != Topology::kFormat)
    yaml::fail(file, root["format"].Mark(),
               "format '" + format + "' is not " + Topology::kFormat +
                   " (written by another version of mcm-probe?)");

  const YAML::Node hosts = root["hosts"];
  yaml::expect_list(file, hosts, "hosts", " of host names");
  if (hosts.size() < 2) yaml::fail(file, hosts.Mark(), "hosts must list at least 2 hosts");
  std::set<std::string> unique;
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    t.hosts.push_back(yaml::text(file, hosts[i], "hosts[" + std::to_string(i) + "]"));
    if (!unique.insert(t.hosts.back()).second)
      yaml::fail(file, hosts[i].Mark(), "host '" + t.hosts.back() + "' is listed twice");
  }
  Reader r{file, t.hosts.size()};

  if (root["date"]) t.date = yaml::text(file, root["date"], "date");
  if (const YAML::Node p = root["partial"]) {
    if (!p.IsScalar() || (p.Scalar() != "true" && p.Scalar() != "false"))
      yaml::fail(file, p.Mark(), "partial must be true or false");
    t.partial = p.Scalar() == "true";
  }
  if (const YAML::Node s = root["skipped"]) {
    yaml::expect_list(file, s, "skipped", " of reasons");
    for (std::size_t i = 0; i < s.size(); ++i)
      t.skipped.push_back(yaml::text(file, s[i], "skipped[" + std::to_string(i) + "]"));
  }

  const YAML::Node sizes = root["sizes"];
  yaml::expect_list(file, sizes, "sizes", " of message sizes in bytes");
  if (sizes.size() == 0) yaml::fail(file, sizes.Mark(), "sizes must not be empty");
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    t.sizes.push_back(
        yaml::integer(file, sizes[k], "sizes[" + std::to_string(k) + "]", 1, 1LL << 40));
    if (k > 0 && t.sizes[k] <= t.sizes[k - 1])
      yaml::fail(file, sizes[k].Mark(), "sizes must be ascending without repeats");
  }
  t.reference_size = t.sizes.back();
  if (const YAML::Node ref = root["reference_size"]) {
    t.reference_size = yaml::integer(file, ref, "reference_size", 1, 1LL << 40);
    if (t.size_index(t.reference_size) < 0)
      yaml::fail(file, ref.Mark(), "reference_size " + ref.Scalar() + " is not in sizes");
  }
  t.latency_us = r.per_size(root["latency_us"], "latency_us", t.sizes);
  t.spread_us = root["spread_us"] ? r.per_size(root["spread_us"], "spread_us", t.sizes)
                                  : std::vector<Matrix>(t.sizes.size(), empty_matrix(r.n));

  if (const YAML::Node fit = root["fit"]) {
    yaml::expect_map(file, fit, "fit", " with alpha_us and beta_bytes_per_us");
    yaml::check_keys(file, fit, "fit", {"alpha_us", "beta_bytes_per_us", "pieces"},
                     {"alpha_us", "beta_bytes_per_us"});
    t.alpha_us = r.matrix(fit["alpha_us"], "fit.alpha_us", kNoLimit);
    t.beta_bytes_per_us = r.matrix(fit["beta_bytes_per_us"], "fit.beta_bytes_per_us", kNoLimit);
    if (const YAML::Node pieces = fit["pieces"]) {  // absent from files of older probes
      yaml::expect_list(file, pieces, "fit.pieces",
                        " of {up_to_bytes, alpha_us, beta_bytes_per_us}");
      for (std::size_t k = 0; k < pieces.size(); ++k) {
        const YAML::Node piece = pieces[k];
        const std::string path = "fit.pieces[" + std::to_string(k) + "]";
        yaml::expect_map(file, piece, path, " with up_to_bytes, alpha_us and beta_bytes_per_us");
        yaml::check_keys(file, piece, path, {"up_to_bytes", "alpha_us", "beta_bytes_per_us"},
                         {"up_to_bytes", "alpha_us", "beta_bytes_per_us"});
        FitPiece p;
        p.up_to_bytes =
            yaml::integer(file, piece["up_to_bytes"], path + ".up_to_bytes", 1, 1LL << 40);
        if (k > 0 && p.up_to_bytes <= t.pieces.back().up_to_bytes)
          r.fail(piece["up_to_bytes"], path + ".up_to_bytes must be above the previous piece's (" +
                                           std::to_string(t.pieces.back().up_to_bytes) + ")");
        p.alpha_us = r.matrix(piece["alpha_us"], path + ".alpha_us", kNoLimit);
        p.beta_bytes_per_us =
            r.matrix(piece["beta_bytes_per_us"], path + ".beta_bytes_per_us", kNoLimit);
        t.pieces.push_back(std::move(p));
      }
    }
  }

  if (const YAML::Node s = root["sensibility"]; s && !s.IsNull()) {
    const Matrix m = r.matrix(s, "sensibility", kNoLimit);
    std::vector<std::vector<int>> weights(r.n, std::vector<int>(r.n, 0));
    for (std::size_t i = 0; i < r.n; ++i)
      for (std::size_t j = 0; j < r.n; ++j) {
        const YAML::Node& cell = s[i][j];
        if (i == j) continue;
        if (!measured(m[i][j]) || m[i][j] != std::floor(m[i][j]))
          r.fail(cell, "sensibility[" + std::to_string(i) + "][" + std::to_string(j) +
                           "] must be a whole number of injections");
        weights[i][j] = static_cast<int>(m[i][j]);
      }
    t.sensibility = weights;
  }
  if (const YAML::Node info = root["sensibility_info"]) {
    yaml::expect_map(file, info, "sensibility_info");
    yaml::check_keys(file, info, "sensibility_info", {"factor", "size", "injections", "possible"},
                     {"factor", "size"});
    SensibilityInfo& si = t.sensibility_info;
    si.factor = yaml::number(file, info["factor"], "sensibility_info.factor", 1.0, 1e6);
    si.size = yaml::integer(file, info["size"], "sensibility_info.size", 1, 1LL << 40);
    if (const YAML::Node inj = info["injections"]) {
      yaml::expect_list(file, inj, "sensibility_info.injections", " of [source, destination]");
      for (std::size_t k = 0; k < inj.size(); ++k) {
        const std::string path = "sensibility_info.injections[" + std::to_string(k) + "]";
        if (!inj[k].IsSequence() || inj[k].size() != 2)
          r.fail(inj[k], path + " must be [source, destination]");
        si.injections.emplace_back(r.index(inj[k][0], path + "[0]"),
                                   r.index(inj[k][1], path + "[1]"));
      }
    }
    if (info["possible"])
      si.possible = static_cast<int>(
          yaml::integer(file, info["possible"], "sensibility_info.possible", 0, 1 << 30));
  }

  auto per_pair = [&](const YAML::Node& node, const std::string& path, auto read_cell) {
    yaml::expect_list(file, node, path, " with one list per source host");
    if (node.size() != r.n)
      r.fail(node, path + " needs " + std::to_string(r.n) + " rows (one per source host)");
    for (std::size_t s = 0; s < r.n; ++s) {
      const std::string row = path + "[" + std::to_string(s) + "]";
      yaml::expect_list(file, node[s], row, " with one list per destination host");
      if (node[s].size() != r.n)
        r.fail(node[s],
               row + " needs " + std::to_string(r.n) + " lists (one per destination host)");
      for (std::size_t d = 0; d < r.n; ++d) {
        const std::string cell = row + "[" + std::to_string(d) + "]";
        yaml::expect_list(file, node[s][d], cell);
        for (std::size_t k = 0; k < node[s][d].size(); ++k)
          read_cell(static_cast<int>(s), static_cast<int>(d), node[s][d][k],
                    cell + "[" + std::to_string(k) + "]");
      }
    }
  };
  auto check_via = [&](int s, int d, const YAML::Node& node, const std::string& path) {
    const int via = r.index(node, path);
    if (via == s || via == d)
      r.fail(node, path + ": intermediate " + std::to_string(via) + " is the path's own " +
                       (via == s ? "source" : "destination"));
    return via;
  };
  if (const YAML::Node alt = root["alternatives"]) {
    t.alternatives.assign(r.n, std::vector<std::vector<int>>(r.n));
    per_pair(alt, "alternatives",
             [&](int s, int d, const YAML::Node& node, const std::string& path) {
               t.alternatives[s][d].push_back(check_via(s, d, node, path));
             });
  }
  if (const YAML::Node det = root["detours"]) {
    t.detours.assign(r.n, std::vector<std::vector<Detour>>(r.n));
    per_pair(det, "detours", [&](int s, int d, const YAML::Node& node, const std::string& path) {
      yaml::expect_map(file, node, path, " {via, latency_us, robustness, beats_direct}");
      yaml::check_keys(file, node, path, {"via", "latency_us", "robustness", "beats_direct"},
                       {"via", "latency_us", "robustness", "beats_direct"});
      Detour x;
      x.via = check_via(s, d, node["via"], path + ".via");
      if (!node["latency_us"].IsNull())
        x.latency_us = yaml::number(file, node["latency_us"], path + ".latency_us", 0, kNoLimit);
      x.robustness = static_cast<int>(
          yaml::integer(file, node["robustness"], path + ".robustness", 0, 1 << 30));
      const YAML::Node b = node["beats_direct"];
      if (!b.IsScalar() || (b.Scalar() != "true" && b.Scalar() != "false"))
        r.fail(b, path + ".beats_direct must be true or false");
      x.beats_direct = b.Scalar() == "true";
      t.detours[s][d].push_back(x);
    });
  }
  return t;
}

Topology load_topology(const std::string& path) {
  return parse_topology(yaml::read_file(path, "topology file"), path);
}

std::vector<int> check_hosts(const Topology& topology, const std::vector<std::string>& job_hosts,
                             const std::string& file_name, const Resolver& resolve) {
  return match_hosts(topology.hosts, job_hosts, file_name, resolve);
}

}  // namespace mcm
