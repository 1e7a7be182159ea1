#include "analysis.h"

#include <algorithm>
#include <cmath>

namespace probe {

using mcm::measured;

std::optional<Fit> fit_latency(const std::vector<long long>& sizes,
                               const std::vector<double>& latency_us) {
  // Weighted normal equations for L = a + b s, weight w = 1 / L².
  double sw = 0, sws = 0, swss = 0, swl = 0, swsl = 0;
  int points = 0;
  for (std::size_t k = 0; k < sizes.size() && k < latency_us.size(); ++k) {
    const double l = latency_us[k];
    if (!measured(l) || l <= 0) continue;
    const double s = static_cast<double>(sizes[k]);
    const double w = 1.0 / (l * l);
    sw += w, sws += w * s, swss += w * s * s, swl += w * l, swsl += w * s * l;
    ++points;
  }
  if (points < 2) return std::nullopt;
  const double det = sw * swss - sws * sws;
  double a = 0, b = 0;
  if (det > 0) {
    a = (swss * swl - sws * swsl) / det;
    b = (sw * swsl - sws * swl) / det;
  }
  constexpr double kFlattest = 1e-9;  // µs per byte: 1e9 bytes/µs, "no size effect"
  if (det <= 0 || b <= 0) {           // latency does not grow: a constant
    b = kFlattest;
    a = std::max(0.0, (swl - b * sws) / sw);
  } else if (a < 0) {  // through the origin
    a = 0;
    b = std::max(kFlattest, swsl / swss);
  }
  return Fit{a, 1.0 / b};
}

void fit_all(mcm::Topology& t) {
  const std::size_t n = t.size();
  t.alpha_us = mcm::empty_matrix(n);
  t.beta_bytes_per_us = mcm::empty_matrix(n);
  t.small_up_to = 0;
  t.small_alpha_us = t.small_beta_bytes_per_us = mcm::Matrix{};
  mcm::Matrix small_alpha = mcm::empty_matrix(n), small_beta = mcm::empty_matrix(n);
  bool any_small = false;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      // The path's measured points, all of them and on either side of the split.
      std::vector<long long> all_sizes, small_sizes, large_sizes;
      std::vector<double> all, small, large;
      for (std::size_t k = 0; k < t.sizes.size(); ++k) {
        const double l = t.latency_us[k][i][j];
        if (!measured(l)) continue;
        all_sizes.push_back(t.sizes[k]), all.push_back(l);
        if (t.sizes[k] <= kSmallUpTo) small_sizes.push_back(t.sizes[k]), small.push_back(l);
        if (t.sizes[k] >= kSmallUpTo) large_sizes.push_back(t.sizes[k]), large.push_back(l);
      }
      const auto small_fit = fit_latency(small_sizes, small);
      const auto large_fit = fit_latency(large_sizes, large);
      const bool piecewise = small_fit && large_fit;
      if (const auto fit = piecewise ? large_fit : fit_latency(all_sizes, all)) {
        t.alpha_us[i][j] = fit->alpha_us;
        t.beta_bytes_per_us[i][j] = fit->beta_bytes_per_us;
      }
      if (piecewise) {
        small_alpha[i][j] = small_fit->alpha_us;
        small_beta[i][j] = small_fit->beta_bytes_per_us;
        any_small = true;
      }
    }
  if (any_small) {
    t.small_up_to = kSmallUpTo;
    t.small_alpha_us = std::move(small_alpha);
    t.small_beta_bytes_per_us = std::move(small_beta);
  }
}

double reference_latency(const mcm::Topology& t, int source, int destination) {
  const int k = t.size_index(t.reference_size);
  if (k >= 0 && measured(t.latency_us[k][source][destination]))
    return t.latency_us[k][source][destination];
  return t.predict_us(source, destination, t.reference_size);
}

void rank_detours(mcm::Topology& t) {
  const int n = static_cast<int>(t.size());
  t.detours.assign(n, std::vector<std::vector<mcm::Detour>>(n));
  t.alternatives.assign(n, std::vector<std::vector<int>>(n));
  auto weight = [&](int a, int b) { return t.sensibility ? (*t.sensibility)[a][b] : 0; };
  for (int s = 0; s < n; ++s)
    for (int d = 0; d < n; ++d) {
      if (s == d) continue;
      const double direct = reference_latency(t, s, d);
      std::vector<mcm::Detour> list;
      for (int m = 0; m < n; ++m) {
        if (m == s || m == d) continue;
        mcm::Detour x;
        x.via = m;
        x.latency_us = reference_latency(t, s, m) + reference_latency(t, m, d);  // NaN if either is
        x.robustness = weight(s, m) + weight(m, d);
        x.beats_direct = measured(x.latency_us) && (!measured(direct) || x.latency_us < direct);
        list.push_back(x);
      }
      double best = mcm::kNotMeasured;
      for (const auto& x : list)
        if (measured(x.latency_us) && !(best <= x.latency_us)) best = x.latency_us;
      auto group = [&](const mcm::Detour& x) {
        if (!measured(x.latency_us)) return 2;
        return x.latency_us <= 1.25 * best ? 0 : 1;
      };
      std::sort(list.begin(), list.end(), [&](const mcm::Detour& a, const mcm::Detour& b) {
        const int ga = group(a), gb = group(b);
        if (ga != gb) return ga < gb;
        if (ga == 0 && a.robustness != b.robustness) return a.robustness < b.robustness;
        if (ga != 2 && a.latency_us != b.latency_us) return a.latency_us < b.latency_us;
        return a.via < b.via;
      });
      for (const auto& x : list)
        if (x.beats_direct) t.alternatives[s][d].push_back(x.via);
      t.detours[s][d] = std::move(list);
    }
}

}  // namespace probe
