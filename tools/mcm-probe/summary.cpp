#include "summary.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "analysis.h"
#include "options.h"

namespace probe {

std::string latency_text(double us) {
  if (!mcm::measured(us)) return "?";
  char text[32];
  std::snprintf(text, sizeof text, us < 10 ? "%.1f" : "%.0f", us);
  return text;
}

double median_path(const mcm::Topology& t) {
  std::vector<double> all;
  for (int i = 0; i < static_cast<int>(t.size()); ++i)
    for (int j = 0; j < static_cast<int>(t.size()); ++j) {
      const double l = i == j ? mcm::kNotMeasured : reference_latency(t, i, j);
      if (mcm::measured(l)) all.push_back(l);
    }
  if (all.empty()) return mcm::kNotMeasured;
  std::sort(all.begin(), all.end());
  return all[all.size() / 2];
}

bool is_outlier(const mcm::Topology& t, int s, int d) {
  const double m = median_path(t), l = reference_latency(t, s, d);
  return mcm::measured(m) && mcm::measured(l) && l > kOutlierFactor * m;
}

std::string summary_text(const mcm::Topology& t) {
  const int n = static_cast<int>(t.size());
  std::size_t width = 8;
  for (const auto& h : t.hosts) width = std::max(width, h.size() + 2);
  std::ostringstream o;
  auto column = [&](const std::string& text) {
    o << std::string(width > text.size() ? width - text.size() : 1, ' ') << text;
  };
  auto header = [&] {
    o << std::string(width, ' ');
    for (const auto& h : t.hosts) column(h);
    o << "\n";
  };

  o << "One-way latency at " << size_text(t.reference_size)
    << " in µs (row: from, column: to; * = more than " << kOutlierFactor << "x the median path):\n";
  header();
  bool outliers = false;
  for (int i = 0; i < n; ++i) {
    column(t.hosts[i]);
    for (int j = 0; j < n; ++j) {
      const bool out = i != j && is_outlier(t, i, j);
      outliers = outliers || out;
      column(i == j ? "-" : latency_text(reference_latency(t, i, j)) + (out ? "*" : ""));
    }
    o << "\n";
  }
  if (!outliers) o << "No outlier: every path is within " << kOutlierFactor << "x the median.\n";

  // "alpha A-B µs, beta C-D MB/s" over the paths of one fit; "" when it has none.
  auto fit_range = [&](const mcm::Matrix& alpha, const mcm::Matrix& beta) -> std::string {
    double a_lo = 1e300, a_hi = -1, b_lo = 1e300, b_hi = -1;
    for (int i = 0; i < n && !alpha.empty(); ++i)
      for (int j = 0; j < n; ++j)
        if (i != j && mcm::measured(alpha[i][j]) && mcm::measured(beta[i][j])) {
          a_lo = std::min(a_lo, alpha[i][j]), a_hi = std::max(a_hi, alpha[i][j]);
          b_lo = std::min(b_lo, beta[i][j]), b_hi = std::max(b_hi, beta[i][j]);
        }
    if (a_hi < 0) return "";
    // A flat line (latency not growing with the size) has the fit's largest beta.
    const auto beta_text = [](double b) {
      char text[32];
      std::snprintf(text, sizeof text, b >= 1e6 ? "flat" : "%.1f", b);
      return std::string(text);
    };
    char text[120];
    std::snprintf(text, sizeof text, "alpha %.1f-%.1f µs, beta %s-%s MB/s", a_lo, a_hi,
                  beta_text(b_lo).c_str(), beta_text(b_hi).c_str());
    return text;
  };
  const std::string last = fit_range(t.alpha_us, t.beta_bytes_per_us);
  if (!t.pieces.empty()) {
    o << "Fit latency = alpha + size/beta, piecewise:";
    long long from = 0;
    for (const mcm::FitPiece& piece : t.pieces) {
      o << (from ? "; " : " ") << (from ? "above " + size_text(from) + " " : std::string())
        << "up to " << size_text(piece.up_to_bytes) << ": "
        << fit_range(piece.alpha_us, piece.beta_bytes_per_us);
      from = piece.up_to_bytes;
    }
    o << "; above " << size_text(from) << ": " << last << "\n";
  } else if (!last.empty()) {
    o << "Fit latency = alpha + size/beta over " << t.sizes.size() << " sizes: " << last << "\n";
  }

  if (t.sensibility) {
    const auto& info = t.sensibility_info;
    o << "\nSensibility (floods that slowed the path above " << info.factor << "x its base at "
      << size_text(info.size) << "; " << info.injections.size() << " of " << info.possible
      << " pairs flooded):\n";
    header();
    for (int i = 0; i < n; ++i) {
      column(t.hosts[i]);
      for (int j = 0; j < n; ++j) column(i == j ? "-" : std::to_string((*t.sensibility)[i][j]));
      o << "\n";
    }
  }

  if (!t.alternatives.empty()) {
    o << "\nDetours that beat the direct path (best first):\n";
    int pairs = 0;
    for (int s = 0; s < n; ++s)
      for (int d = 0; d < n; ++d) {
        if (t.alternatives[s][d].empty()) continue;
        ++pairs;
        o << "  " << t.hosts[s] << " -> " << t.hosts[d] << " (direct "
          << latency_text(reference_latency(t, s, d)) << " µs):";
        for (const mcm::Detour& x : t.detours[s][d])
          if (x.beats_direct)
            o << " via " << t.hosts[x.via] << " " << latency_text(x.latency_us) << " µs (weight "
              << x.robustness << ")";
        o << "\n";
      }
    if (pairs == 0)
      o << "  none: the direct path is the fastest for every pair\n";
    else
      o << "  every other pair: the direct path is the fastest\n";
  }
  if (!t.skipped.empty()) {
    o << "\n" << (t.partial ? "PARTIAL RESULT. " : "") << "Not measured:\n";
    for (const auto& s : t.skipped) o << "  - " << s << "\n";
  }
  return o.str();
}

}  // namespace probe
