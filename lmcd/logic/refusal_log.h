// Which refusals lmcd writes to its log: all of them are refused, but a client that keeps
// sending garbage must not fill the disk. Per peer address, the first kPerWindow refusals of
// each kWindowS window are logged; the others are counted and said in one line with the
// peer's next logged refusal. Pure (the caller passes the time): test/unit/lmcd_logic_test.cpp.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace mcm::lmcd {

class RefusalLog {
 public:
  static constexpr int kPerWindow = 5;
  static constexpr double kWindowS = 60;
  static constexpr std::size_t kMaxPeers = 4096;  ///< beyond: the quietest peer is forgotten

  /// Whether to log a refusal of `peer` at `now` (seconds); when it is, `unlogged` gets how
  /// many of that peer's refusals were not logged since its last logged one.
  bool admit(const std::string& peer, double now, std::uint64_t* unlogged);

 private:
  struct Window {
    double start = 0;
    int logged = 0;
    std::uint64_t unlogged = 0;
  };
  std::map<std::string, Window> peers_;
};

}  // namespace mcm::lmcd
