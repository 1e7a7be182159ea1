#include "runtime/figure_text.h"

#include <cmath>
#include <cstdio>

namespace mcm::daemon {

std::string latency_text(double us, const std::string& unknown) {
  if (std::isnan(us)) return unknown;
  if (std::isinf(us)) return us > 0 ? "infinite" : "-infinite";
  const double a = std::fabs(us);
  const char* format = a >= 1e5   ? "%.0f ms"
                       : a >= 1e4 ? "%.1f ms"
                       : a >= 1e3 ? "%.2f ms"
                       : a >= 100 ? "%.0f µs"
                       : a >= 10  ? "%.1f µs"
                       : a > 0    ? "%.2f µs"
                                  : "%.0f µs";
  char text[48];
  std::snprintf(text, sizeof text, format, a >= 1e3 ? us / 1000 : us);
  return text;
}

std::string ratio_text(double ratio, const std::string& unknown) {
  if (!std::isfinite(ratio)) return unknown;
  char text[48];
  std::snprintf(text, sizeof text, std::fabs(ratio) < 10 ? "%.2fx" : "%.1fx", ratio);
  return text;
}

}  // namespace mcm::daemon
