#include "heatmap.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "analysis.h"
#include "options.h"
#include "summary.h"

namespace probe {
namespace {

std::string escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

/// Hue 120 (green) at ratio <= 1 down to 0 (red) at kOutlierFactor, on a log scale.
std::string colour(double ratio) {
  const double x = std::clamp(std::log(std::max(ratio, 1.0)) / std::log(kOutlierFactor), 0.0, 1.0);
  char text[48];
  std::snprintf(text, sizeof text, "hsl(%.0f,65%%,%.0f%%)", 120 * (1 - x), 78 - 18 * x);
  return text;
}

}  // namespace

std::string heatmap_svg(const mcm::Topology& t) {
  const int n = static_cast<int>(t.size());
  constexpr int kCell = 96, kLeft = 110, kTop = 110;
  const int width = std::max(kLeft + n * kCell + 30, 600), height = kTop + n * kCell + 50;
  const double median = mcm::measured(median_path(t)) ? median_path(t) : 1;

  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\"" << height
    << "\" font-family=\"sans-serif\" font-size=\"13\">\n"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    << "<text x=\"10\" y=\"24\" font-size=\"16\" font-weight=\"bold\">One-way latency at "
    << escape(size_text(t.reference_size)) << " (µs)" << (t.partial ? " — PARTIAL" : "")
    << "</text>\n"
    << "<text x=\"10\" y=\"46\" fill=\"#555\">row: from, column: to; green: the median path "
       "or faster; red: "
    << kOutlierFactor << "x the median or slower</text>\n"
    << "<text x=\"10\" y=\"64\" fill=\"#555\">bold frame: a detour beats the direct path "
       "(the best one and its latency inside)</text>\n";
  for (int k = 0; k < n; ++k) {
    o << "<text x=\"" << kLeft + k * kCell + kCell / 2 << "\" y=\"" << kTop - 10
      << "\" text-anchor=\"middle\" font-weight=\"bold\">" << escape(t.hosts[k]) << "</text>\n";
    o << "<text x=\"" << kLeft - 10 << "\" y=\"" << kTop + k * kCell + kCell / 2 + 5
      << "\" text-anchor=\"end\" font-weight=\"bold\">" << escape(t.hosts[k]) << "</text>\n";
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const int x = kLeft + j * kCell, y = kTop + i * kCell;
      const double l = i == j ? mcm::kNotMeasured : reference_latency(t, i, j);
      const bool detour = !t.alternatives.empty() && !t.alternatives[i][j].empty();
      const std::string fill = i == j ? "#ddd" : !mcm::measured(l) ? "#eee" : colour(l / median);
      o << "<rect x=\"" << x << "\" y=\"" << y << "\" width=\"" << kCell << "\" height=\"" << kCell
        << "\" fill=\"" << fill << "\" stroke=\"" << (detour ? "#111" : "white")
        << "\" stroke-width=\"" << (detour ? 4 : 1) << "\"/>\n";
      if (i == j) continue;
      const std::string value = latency_text(l);
      o << "<text x=\"" << x + kCell / 2 << "\" y=\"" << y + kCell / 2 - (detour ? 6 : -5)
        << "\" text-anchor=\"middle\" font-size=\"15\">" << value << "</text>\n";
      if (detour) {
        const mcm::Detour* best = nullptr;
        for (const auto& d : t.detours[i][j])
          if (d.beats_direct) {
            best = &d;
            break;
          }
        char via[96];
        std::snprintf(via, sizeof via, "via %s: %.0f", t.hosts[best->via].c_str(),
                      best->latency_us);
        o << "<text x=\"" << x + kCell / 2 << "\" y=\"" << y + kCell / 2 + 16
          << "\" text-anchor=\"middle\" font-size=\"11\">" << escape(via) << "</text>\n";
      }
    }
  o << "<text x=\"10\" y=\"" << height - 20 << "\" fill=\"#555\" font-size=\"11\">"
    << escape(t.date) << "; median path " << static_cast<long long>(median)
    << " µs; sizes measured:";
  for (long long s : t.sizes) o << " " << escape(size_text(s));
  o << "</text>\n</svg>\n";
  return o.str();
}

}  // namespace probe
