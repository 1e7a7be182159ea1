#include "analysis.h"

#include <algorithm>
#include <cmath>
#include <iterator>

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
  constexpr std::size_t kPieces = std::size(kPieceBounds);
  t.alpha_us = mcm::empty_matrix(n);
  t.beta_bytes_per_us = mcm::empty_matrix(n);
  t.pieces.assign(kPieces, mcm::FitPiece{});
  for (std::size_t k = 0; k < kPieces; ++k) {
    t.pieces[k].up_to_bytes = kPieceBounds[k];
    t.pieces[k].alpha_us = t.pieces[k].beta_bytes_per_us = mcm::empty_matrix(n);
  }
  bool any_piecewise = false;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      if (i == j) continue;
      // The path's measured points, all of them and per range: range k < kPieces is piece
      // k's, range kPieces the sizes from the last bound on.
      std::vector<long long> all_sizes, range_sizes[kPieces + 1];
      std::vector<double> all, range[kPieces + 1];
      for (std::size_t k = 0; k < t.sizes.size(); ++k) {
        const double l = t.latency_us[k][i][j];
        if (!measured(l)) continue;
        const long long s = t.sizes[k];
        all_sizes.push_back(s), all.push_back(l);
        for (std::size_t p = 0; p <= kPieces; ++p) {
          const long long lo = p == 0 ? 0 : kPieceBounds[p - 1];
          const long long hi = p == kPieces ? s : kPieceBounds[p];
          if (s >= lo && s <= hi) range_sizes[p].push_back(s), range[p].push_back(l);
        }
      }
      std::optional<Fit> fits[kPieces + 1];
      bool piecewise = true;
      for (std::size_t p = 0; p <= kPieces; ++p)
        piecewise = (fits[p] = fit_latency(range_sizes[p], range[p])) && piecewise;
      const auto fit = piecewise ? fits[kPieces] : fit_latency(all_sizes, all);
      if (fit) {
        t.alpha_us[i][j] = fit->alpha_us;
        t.beta_bytes_per_us[i][j] = fit->beta_bytes_per_us;
      }
      if (!piecewise) continue;
      any_piecewise = true;
      for (std::size_t p = 0; p < kPieces; ++p) {
        t.pieces[p].alpha_us[i][j] = fits[p]->alpha_us;
        t.pieces[p].beta_bytes_per_us[i][j] = fits[p]->beta_bytes_per_us;
      }
    }
  if (!any_piecewise) t.pieces.clear();
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
