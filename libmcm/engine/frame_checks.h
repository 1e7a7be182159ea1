// What an application rank checks of every frame before its engine acts on it
// (mcm/protocol/frames.h). The codec has checked the frame against itself
// (protocol::read_envelope: sizes, kind, chunk inside its message); these checks need the
// job, so that no field from the wire indexes a table or names a peer it should not:
//  - kRouteUpdate: only from this rank's own daemon (rule 7), for a VM of the job (`tag`)
//    or kInitialRoutesEnd, `via` -1 or a VM of the job;
//  - every other kind: for this rank (`destination`), from an application rank of the job
//    (`source`), handed to this rank by that rank itself or by a daemon of the job (the
//    MPI sender), `via` -1 or a VM of the job, and of at most max_message_bytes.
// check() returns "" for a frame this rank may take, else why not (a phrase for the line
// the rank prints before it ends the job: FrameIO::fail_on_frame). Pure: unit-tested in
// test/unit/frame_checks_test.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mcm/bootstrap.h"
#include "mcm/protocol/frames.h"

namespace mcm::engine {

class FrameChecks {
 public:
  /// The largest message a frame may announce unless configured otherwise: 64 GiB.
  static constexpr std::uint64_t kDefaultMaxMessageBytes = std::uint64_t{64} << 30;

  FrameChecks() = default;
  explicit FrameChecks(const Layout& layout,
                       std::uint64_t max_message_bytes = kDefaultMaxMessageBytes);

  /// `e` as read from a frame that MPI says world rank `mpi_source` sent.
  std::string check(const protocol::Envelope& e, int mpi_source) const;

 private:
  bool app_rank(int world_rank) const;
  bool daemon(int world_rank) const;
  bool vm_or_none(int vm) const { return vm == -1 || (vm >= 0 && vm < vm_count_); }

  int me_ = -1;
  int local_daemon_ = -1;
  int vm_count_ = 0;
  std::uint64_t max_message_bytes_ = kDefaultMaxMessageBytes;
  std::vector<char> role_;  ///< by world rank: 'a' application, 'd' daemon, 0 unknown
};

}  // namespace mcm::engine
