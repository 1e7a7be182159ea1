#include "progress.h"

#include <cstdio>

namespace probe {

void ProgressDisplay::update(const std::string& phase, int done, int total,
                             const std::string& detail) {
  if (style_ == Progress::none) return;
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (style_ == Progress::lines) {
    std::fprintf(stderr, "mcm-probe: %s %d/%d %s (%.1f s)\n", phase.c_str(), done, total,
                 detail.c_str(), seconds);
  } else {
    constexpr int kWidth = 24;
    const int filled = total > 0 ? done * kWidth / total : kWidth;
    std::string bar(static_cast<std::size_t>(filled), '#');
    bar.resize(kWidth, '.');
    std::fprintf(stderr, "\r\033[Kmcm-probe: %-16s [%s] %d/%d %s %.1f s", phase.c_str(),
                 bar.c_str(), done, total, detail.c_str(), seconds);
    drawn_ = true;
  }
  std::fflush(stderr);
}

void ProgressDisplay::finish() {
  if (drawn_) std::fputc('\n', stderr);
  drawn_ = false;
  std::fflush(stderr);
}

}  // namespace probe
