#include "svg.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace mcm::report {
namespace {

/// White to dark blue, for a share in [0, 1].
std::string shade(double share) {
  share = std::clamp(share, 0.0, 1.0);
  const auto mix = [&](int light, int dark) {
    return static_cast<int>(std::lround(light + (dark - light) * share));
  };
  return fmt::format("#{:02x}{:02x}{:02x}", mix(247, 8), mix(251, 48), mix(255, 107));
}

const char* zone_colour(const std::string& zone) {
  if (zone == "high") return "#d7301f";
  if (zone == "medium") return "#fdae61";
  return "#a6d96a";
}

}  // namespace

std::string escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string heatmap_svg(const std::string& title, const std::vector<std::string>& labels,
                        const std::vector<std::vector<double>>& values,
                        std::string (*unit)(double)) {
  const int n = static_cast<int>(labels.size());
  const int cell = n <= 8 ? 64 : n <= 16 ? 30 : std::max(6, 480 / std::max(n, 1));
  const int left = 70, top = 56;
  // Wide enough for the title (about 7 px a character at 13 px).
  const int width = std::max(left + n * cell + 20, 20 + 8 * static_cast<int>(title.size()));
  const int height = top + n * cell + 40;
  double top_value = 0;
  for (const auto& row : values)
    for (double v : row) top_value = std::max(top_value, v);
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"heatmap\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">\n"
      "<text x=\"10\" y=\"18\" class=\"title\">{}</text>\n"
      "<text x=\"{}\" y=\"34\" class=\"axis\">to →</text>\n"
      "<text x=\"4\" y=\"{}\" class=\"axis\">from ↓</text>\n",
      width, height, width, height, escape(title), escape(title), left, top + 14);
  for (int i = 0; i < n; ++i) {
    // Columns: the whole label while it fits a cell, else the rank alone.
    const std::string& label = labels[static_cast<size_t>(i)];
    const std::string column = n <= 8 ? label : label.substr(0, label.find(' '));
    svg += fmt::format("<text x=\"{}\" y=\"{}\" class=\"label\" text-anchor=\"middle\">{}</text>\n",
                       left + i * cell + cell / 2, top - 6, escape(column));
    svg += fmt::format("<text x=\"{}\" y=\"{}\" class=\"label\" text-anchor=\"end\">{}</text>\n",
                       left - 6, top + i * cell + cell / 2 + 4,
                       escape(labels[static_cast<size_t>(i)]));
  }
  for (int r = 0; r < n; ++r)
    for (int c = 0; c < n; ++c) {
      const double v = values[static_cast<size_t>(r)][static_cast<size_t>(c)];
      const double share = top_value > 0 ? v / top_value : 0;
      svg += fmt::format(
          "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"#ddd\">"
          "<title>{} → {}: {}</title></rect>\n",
          left + c * cell, top + r * cell, cell, cell, shade(share),
          escape(labels[static_cast<size_t>(r)]), escape(labels[static_cast<size_t>(c)]),
          escape(unit(v)));
      if (n <= 8 && v > 0)  // inline style: the page's CSS colours text otherwise
        svg += fmt::format(
            "<text x=\"{}\" y=\"{}\" class=\"cell\" text-anchor=\"middle\" "
            "style=\"fill:{}\">{}</text>\n",
            left + c * cell + cell / 2, top + r * cell + cell / 2 + 4,
            share > 0.55 ? "#fff" : "#222", escape(unit(v)));
    }
  svg += fmt::format("<text x=\"{}\" y=\"{}\" class=\"axis\">darkest: {}</text>\n</svg>\n", left,
                     top + n * cell + 24, escape(unit(top_value)));
  return svg;
}

std::string timeline_svg(const std::string& title, const std::vector<PathSample>& samples,
                         const std::vector<PathChange>& changes, double end_s) {
  const int left = 64, top = 30, plot_w = 720, plot_h = 160;
  const int width = left + plot_w + 20, height = top + plot_h + 56;
  end_s = std::max(end_s, 1.0);
  for (const PathSample& s : samples) end_s = std::max(end_s, s.t + 1);
  // y: latency over base, on a log scale from 0.5x to the largest ratio seen (at least 10x).
  double top_ratio = 10;
  for (const PathSample& s : samples)
    if (s.base_us > 0) top_ratio = std::max(top_ratio, s.latency_us / s.base_us);
  const double log_low = std::log10(0.5), log_high = std::log10(top_ratio * 1.2);
  const auto x = [&](double t) { return left + plot_w * std::clamp(t / end_s, 0.0, 1.0); };
  const auto y = [&](double ratio) {
    const double l = std::log10(std::max(ratio, 0.5));
    return top + plot_h * (1 - (l - log_low) / (log_high - log_low));
  };
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeline\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">\n"
      "<text x=\"{}\" y=\"18\" class=\"title\">{}</text>\n"
      "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fafafa\" stroke=\"#ccc\"/>\n",
      width, height, width, height, escape(title), left, escape(title), left, top, plot_w, plot_h);
  for (double ratio : {1.0, 3.0, 10.0, 30.0, 100.0, 1000.0}) {
    if (ratio > top_ratio * 1.2) break;
    svg += fmt::format(
        "<line x1=\"{}\" x2=\"{}\" y1=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#e3e3e3\"/>"
        "<text x=\"{}\" y=\"{:.1f}\" class=\"axis\" text-anchor=\"end\">{}x</text>\n",
        left, left + plot_w, y(ratio), y(ratio), left - 4, y(ratio) + 4, ratio);
  }
  // One bar per sample: its zone's colour, from 1x to its ratio; direct and detour paths
  // apart (detours drawn hollow).
  const double bar = std::max(1.0, plot_w / end_s - 1);
  for (const PathSample& s : samples) {
    if (s.base_us <= 0) continue;
    const double ratio = s.latency_us / s.base_us;
    const double y0 = y(1), y1 = y(ratio);
    svg += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" "
        "fill-opacity=\"{}\" stroke=\"{}\"><title>{:.0f} s, {}: {:.0f} µs ({:.1f}x the base {:.0f} "
        "µs), zone {}</title></rect>\n",
        x(s.t), std::min(y0, y1), bar, std::max(1.0, std::abs(y0 - y1)), zone_colour(s.zone),
        s.via.empty() ? "0.9" : "0.25", zone_colour(s.zone), s.t,
        s.via.empty() ? "direct" : "via " + s.via, s.latency_us, ratio, s.base_us, s.zone);
  }
  for (const PathChange& c : changes) {
    const std::string label = c.kind == "switch" ? "→ via " + c.to_via : "→ direct";
    svg += fmt::format(
        "<line x1=\"{:.1f}\" x2=\"{:.1f}\" y1=\"{}\" y2=\"{}\" stroke=\"#333\" "
        "stroke-dasharray=\"4 3\"><title>{:.1f} s: {}</title></line>"
        "<text x=\"{:.1f}\" y=\"{}\" class=\"mark\">{}</text>\n",
        x(c.t), x(c.t), top, top + plot_h, c.t, escape(c.reason), x(c.t) + 3, top + 12,
        escape(label));
  }
  svg += fmt::format(
      "<text x=\"{}\" y=\"{}\" class=\"axis\">0 s</text>"
      "<text x=\"{}\" y=\"{}\" class=\"axis\" text-anchor=\"end\">{:.0f} s</text>\n"
      "<text x=\"{}\" y=\"{}\" class=\"axis\">latency over the base; colour: zone "
      "(green low, orange medium, red high); pale: a detour's samples; dashed: path changes"
      "</text>\n</svg>\n",
      left, top + plot_h + 16, left + plot_w, top + plot_h + 16, end_s, left, top + plot_h + 36);
  return svg;
}

std::string bars_svg(const std::string& title, const std::vector<std::string>& labels,
                     const std::vector<std::vector<double>>& parts,
                     const std::vector<std::string>& part_names,
                     const std::vector<std::string>& colours, const std::string& unit) {
  const int left = 150, top = 30, row = 22, plot_w = 520;
  const int n = static_cast<int>(labels.size());
  const int width = left + plot_w + 90, height = top + n * row + 40;
  double longest = 0;
  for (const auto& p : parts) {
    double sum = 0;
    for (double v : p) sum += v;
    longest = std::max(longest, sum);
  }
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"bars\" width=\"{}\" height=\"{}\" "
      "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"{}\">\n"
      "<text x=\"{}\" y=\"18\" class=\"title\">{}</text>\n",
      width, height, width, height, escape(title), left, escape(title));
  for (int i = 0; i < n; ++i) {
    const int yy = top + i * row;
    svg += fmt::format("<text x=\"{}\" y=\"{}\" class=\"label\" text-anchor=\"end\">{}</text>\n",
                       left - 6, yy + 15, escape(labels[static_cast<size_t>(i)]));
    double at = 0, sum = 0;
    for (size_t k = 0; k < parts[static_cast<size_t>(i)].size(); ++k) {
      const double v = parts[static_cast<size_t>(i)][k];
      const double w = longest > 0 ? plot_w * v / longest : 0;
      svg += fmt::format(
          "<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\"><title>{}: {}: "
          "{:.2f} {}</title></rect>\n",
          left + at, yy + 3, w, row - 6, colours[k % colours.size()],
          escape(labels[static_cast<size_t>(i)]), escape(part_names[k % part_names.size()]), v,
          escape(unit));
      at += w;
      sum += v;
    }
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" class=\"axis\">{:.2f} {}</text>\n",
                       left + at + 4, yy + 15, sum, escape(unit));
  }
  double lx = left;
  for (size_t k = 0; k < part_names.size(); ++k) {
    svg += fmt::format(
        "<rect x=\"{:.0f}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>"
        "<text x=\"{:.0f}\" y=\"{}\" class=\"axis\">{}</text>\n",
        lx, top + n * row + 12, colours[k % colours.size()], lx + 16, top + n * row + 22,
        escape(part_names[k]));
    lx += 24 + 7.0 * static_cast<double>(part_names[k].size());
  }
  return svg + "</svg>\n";
}

}  // namespace mcm::report
