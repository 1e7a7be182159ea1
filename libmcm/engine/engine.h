// The shim's point-to-point engine (modes relay and adaptive): every point-to-point
// operation on a managed communicator becomes frames (frame_io.h) that the engine matches
// itself with MPI's rules (matching.h). The application sees generalized requests.
//
// Requests. Each nonblocking operation gets a generalized request (PMPI_Grequest_start)
// as its handle, completed (PMPI_Grequest_complete) when the operation is; the wait/test
// wrappers ask the engine first (owns()) and report the status the engine recorded.
// Persistent requests keep one generalized request for their whole life.
//
// Completion rules: a receive completes when all its payload arrived; a standard or ready
// send when all its frames have left this process (handed over to the daemon or peer); a
// synchronous send also needs the receiver's match acknowledgement; a buffered send at
// once (its data was copied).
//
// Errors on erroneous arguments (rank, tag, count, datatype) are left to MPI: the call is
// passed through to PMPI unchanged, which raises exactly the error MPI would.
//
// Mode adaptive (frames.h rules 9-11, native_path.cpp): messages of healthy pairs are
// plain MPI messages on the application's communicators; the engine frames only what
// the daemons carry, backs every receive with a native one, and waits inside MPI
// (block()) instead of polling and sleeping, unless the application runs
// MPI_THREAD_MULTIPLE.
//
// MPI calls: the native path's, the application's handles, statuses and datatypes go
// through NativeMpi (native_mpi.h), the frames' through mcm/transport.h; start() sets
// both to MPI itself, start_on() to others (the unit tests' fakes run two engines in one
// process: test/unit/engine_switch_test.cpp).
//
// Threads: every public function expects the caller to hold lock().
#pragma once

#include <mpi.h>

#include <deque>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "engine/context_registry.h"
#include "engine/detour_tally.h"
#include "engine/fair_lock.h"
#include "engine/frame_io.h"
#include "engine/late_arrivals.h"
#include "engine/matching.h"
#include "engine/native_mpi.h"
#include "engine/op.h"
#include "engine/progress_hook.h"
#include "engine/receive_tally.h"
#include "engine/side_channel.h"
#include "mcm/transport.h"

namespace mcm::engine {

class Engine {
 public:
  static Engine& instance();

  /// `adaptive`: messages to other VMs go straight to their rank while the daemon has not
  /// detoured their VM pair (frames.h rule 7); otherwise all go through the daemons.
  void start(const mcm::Layout& layout, std::size_t chunk_bytes, bool adaptive = false);
  /// start() over `transport` and `mpi` (kept by reference), without what needs MPI
  /// itself: no thread level query (`multithreaded` says it), no progress hook (no
  /// native collectives), no communicator registry (contexts().adopt() adds them), no
  /// private MPI_COMM_SELF (only contiguous data). How unit tests run engines over fakes.
  void start_on(mcm::Transport& transport, NativeMpi& mpi, const mcm::Layout& layout,
                std::size_t chunk_bytes, bool adaptive, bool multithreaded = false);
  /// This rank's doorbell: open it (listening) before bootstrap() to publish its address;
  /// whoever hands this rank a frame rings it, and waiting loops sleep on it (Backoff).
  mcm::Doorbell& doorbell() { return doorbell_; }
  /// Drains buffered sends, then forgets everything. Before PMPI_Finalize. A drain that
  /// takes longer than the stall warning says so on stderr, once, and goes on waiting (a
  /// receiver may compute long; a dead or wedged daemon ends the job through the
  /// daemons' heartbeats). Messages that arrived but wait for an earlier one that never
  /// came (a gap in a sender's sequence) are reported on stderr: they were not delivered.
  void stop();
  /// liveness.stall_warning_s (MCM_STALL_WARNING_S, set by mcmrun); default 60 s.
  void set_stall_warning(std::chrono::seconds s) { stall_warning_ = s; }
  std::chrono::seconds stall_warning() const { return stall_warning_; }
  /// Before start(): the largest message a frame may announce (relay.max_message_bytes,
  /// MCM_MAX_MESSAGE_BYTES, set by mcmrun); default 64 GiB.
  void set_max_message_bytes(std::uint64_t bytes) { max_message_bytes_ = bytes; }
  int world_rank() const { return layout_ == nullptr ? -1 : layout_->world_rank; }
  /// What this rank's engine waits for, one line for a stall warning (under the lock):
  /// peers framed to or flushing, with their held sends (sender side); open epochs and
  /// messages behind a gap (receiver side); native sends not complete, sends waiting for
  /// their match ACK, detached sends, frames in flight.
  std::string describe_waits() const;
  bool active() const { return active_; }
  /// Whether blocking collectives run as themselves, the engine driven from Open MPI's
  /// progress loop meanwhile (progress_hook.h): mode adaptive with the hook installed.
  bool native_collectives() const { return native_collectives_; }
  FairLock& lock() { return mutex_; }
  ContextRegistry& contexts() { return contexts_; }

  /// How the next message to `peer` of `c` travels (mode adaptive: frames.h rules 9-11;
  /// otherwise always frames). Deciding is part of sending: a native decision counts the
  /// message as sent natively, and leaving a detour sends the flush.
  enum class SendPath { native, frames, hold };
  SendPath send_path(Context& c, int peer);
  /// Whether waits block inside MPI (block()): mode adaptive, single-threaded, and
  /// nothing travels through the daemons to or from this rank. Otherwise waits poll and
  /// sleep on the doorbell: ranks spinning in MPI take the cores the daemons need to
  /// forward (a detoured 8-byte ping-pong took 2x as long).
  bool blocking() const {
    return blocking_ && framing_ == 0 && epochs_.empty() && frames_.in_flight() == 0;
  }
  /// The application initialised MPI with MPI_THREAD_MULTIPLE: several of its threads
  /// may wait at once (Backoff paces them).
  bool multithreaded() const { return multithreaded_; }
  /// Blocks in PMPI_Waitany until one of the engine's requests or of `extras[0..n)`
  /// completes, then makes progress. Returns the index of the extra that completed (its
  /// status in *status, its error in *error, extras[i] as MPI left it), or -1.
  int block(MPI_Request* extras = nullptr, int n = 0, MPI_Status* status = nullptr,
            int* error = nullptr);
  /// Like block(), with PMPI_Waitsome: everything that completed in one call (MPI_Waitall
  /// over n requests needed up to n rounds otherwise). Returns how many extras
  /// completed; their indices in which[0..k), their statuses and errors in statuses[i]
  /// and errors[i] (i: the extra's index; arrays of n), extras[i] as MPI left it.
  int block_some(MPI_Request* extras, int n, int* which, MPI_Status* statuses, int* errors);

  /// Starts a send or receive and returns its handle (a grequest, or a persistent
  /// request's). `context` must be comm's. Arguments must be valid (see valid_*).
  /// `path` comes from send_path() (not native).
  MPI_Request isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                    Context& context, SendMode mode, SendPath path = SendPath::frames);
  MPI_Request irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
                    const Context& context);
  /// A receive without a user-visible handle (MPI_Recv): poll it with test_op().
  Op* recv_op(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              const Context& context);
  /// If `op` (from recv_op) has completed: fills `status`, stores its error, deletes it.
  bool test_op(Op* op, MPI_Status* status, int* error);
  MPI_Request persistent(Op::Kind kind, void* buf, int count, MPI_Datatype type, int peer, int tag,
                         MPI_Comm comm, const Context& context, SendMode mode);
  void start_persistent(MPI_Request request);

  /// MPI_Iprobe / MPI_Improbe on a managed communicator (one round of progress first).
  bool iprobe(int source, int tag, const Context& context, MPI_Status* status);
  bool improbe(int source, int tag, const Context& context, MPI_Message* message,
               MPI_Status* status);
  bool owns(MPI_Message message) const { return probed_.count(message) != 0; }
  MPI_Request imrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message);

  bool owns(MPI_Request request) const { return ops_.count(request) != 0; }
  /// Persistent requests MPI made itself (communicators the engine does not manage):
  /// blocking waits cannot leave them to PMPI_Waitsome, which skips them while inactive
  /// (an inactive request completes at once, MPI-3.1 §3.7.3). Noted at creation,
  /// forgotten when freed.
  void note_native_persistent(MPI_Request request) { native_persistent_.insert(request); }
  void forget_native_persistent(MPI_Request request) { native_persistent_.erase(request); }
  bool native_persistent(MPI_Request request) const {  // MPI_Waitall asks per request
    return !native_persistent_.empty() && native_persistent_.count(request) != 0;
  }
  /// If `*request` (ours) has completed: fills `status`, stores the operation's error in
  /// `*error`, releases a nonpersistent request (*request = MPI_REQUEST_NULL) and returns
  /// true. An inactive persistent request counts as completed with an empty status.
  /// `comm` (optional) receives the communicator its errors are raised on, done or not.
  bool test(MPI_Request* request, MPI_Status* status, int* error, bool release = true,
            MPI_Comm* comm = nullptr);
  /// MPI_Request_free / MPI_Cancel of one of ours.
  void free(MPI_Request* request);
  void cancel(MPI_Request request);

  /// One round of progress, without yielding the core between its MPI calls
  /// (mcm/progress_scopes.h); true when anything moved.
  bool progress();
  /// Waits wake for `channel`'s receive and progress polls it (side_channel.h); null
  /// detaches it. Not owned.
  void attach(SideChannel* channel) {
    side_ = channel;
    progress_hook::set_side_listening(channel != nullptr);
  }
  /// The side channel's own round (progress_hook.h, from calls the engine does not drive).
  bool poll_side() { return side_ != nullptr && side_->poll(); }
  /// Whether buffered sends still have frames in flight (MPI_Buffer_detach waits).
  bool buffered_pending() const { return detached_ != 0; }

  /// What the engine carried, for the run's records.
  struct Counters {
    std::uint64_t messages_sent = 0, bytes_sent = 0, frames_sent = 0;
    std::uint64_t messages_received = 0, bytes_received = 0, match_acks_sent = 0;
    /// Messages from other VMs that arrived after their receive was posted (t_r > t_rq),
    /// each reported to its source VM's daemon (mcm/protocol/runtime_messages.h).
    std::uint64_t late_messages = 0;
    std::uint64_t route_updates = 0;  ///< kRouteUpdate frames from the daemon (adaptive)
    /// Mode adaptive: messages sent natively (healthy pairs; not counted in
    /// messages_sent), natives taken out of MPI's queue for a frame that waited for them
    /// (frames.h rule 10), and flushes sent.
    std::uint64_t native_sends = 0, natives_taken = 0, flushes = 0;
  };
  const Counters& counters() const { return counters_; }
  /// Whether messages to VM `vm` travel through the daemons now (mode adaptive: the
  /// daemon detoured this VM's path to it; mode relay: always).
  bool through_daemons(int vm) const { return frames_.through_daemons(vm); }
  /// Messages sent straight to another VM's daemon (direct detours, mcm/protocol/frames.h rule 7).
  std::uint64_t detoured_messages() const { return frames_.detoured_messages(); }
  /// Mode adaptive: per detour, whether this rank's messages to its VM left through the daemons.
  const DetourTally& detours() const { return detours_; }
  /// Late-message records handed to MPI for the source daemons (== late_messages after
  /// stop()).
  std::uint64_t late_acks_sent() const { return late_.sent(); }
  /// What this rank received, per source world rank, and how long it waited for it.
  const ReceiveTally& received() const { return received_; }
  /// After stop(): messages that arrived but were never delivered, each behind one that
  /// never came (frames.h rule 4; said on stderr by stop()).
  std::size_t lost_messages() const { return lost_messages_; }
  /// Seconds since start() that this rank spent outside the engine's calls and Open MPI's
  /// own collectives (computing, or in MPI calls that neither drive the engine nor are
  /// collectives): the sum of the intervals between progress rounds, blocking waits and
  /// native collectives. An estimate of its computation.
  double outside_mpi_seconds() const { return outside_mpi_s_; }
  /// A blocking collective of Open MPI's own begins / ends (mcm_native_collective_begin):
  /// its time is in MPI, also between the progress rounds its progress hook runs. Nested
  /// (threads) calls count once. Under the engine lock.
  void native_collective_begin();
  void native_collective_end();
  /// The calling thread just slept or yielded inside an MPI call, between progress rounds
  /// (a wait loop's backoff): that time was in MPI, not computation. Under the engine lock.
  void note_waited_in_mpi();
  double started_at() const { return started_at_; }

  /// Argument checks; false means: let MPI handle (and report) the call.
  static bool valid_peer(int rank, const Context& c, bool receive);
  static bool valid_tag(int tag, bool receive);
  static bool valid_count_type(int count, MPI_Datatype type);

 private:
  Op* new_op(Op::Kind kind, MPI_Comm comm, int context, bool with_handle);
  /// new_op() with the call's arguments recorded.
  Op* new_call(Op::Kind kind, const void* buf, int count, MPI_Datatype type, int peer, int tag,
               MPI_Comm comm, int context, SendMode mode, bool with_handle);
  /// Sends op's message (from op->buf), or completes it at once for MPI_PROC_NULL or a
  /// communicator gone (`c` null).
  void start_send(Op* op, const Context* c);
  void send_frames(Op* op, const Context& c, const void* buf);
  /// Sends op's message the way send_path() chose (frames: also MPI_PROC_NULL, or a
  /// communicator gone, `c` null).
  void send_by(Op* op, Context* c, SendPath path);
  /// What a frame to `peer` of `c` carries as natives_before (frames.h rule 10).
  std::uint32_t natives_before(const Context& c, int peer) const;
  /// Sends a kFlush to `peer` of `c` (frames.h rule 11).
  void send_flush(Context& c, int peer, PeerSendState& state);
  /// Holds the message of `op` until the flush is answered (frames.h rule 11).
  void hold(Op* op, PeerSendState& state);
  /// Sends the held messages of `state`: natively, or as frames when detoured again.
  void release_held(Context& c, PeerSendState& state, bool as_frames);
  /// Sends `op` natively (its mode's nonblocking call) and watches it.
  void send_native(Op* op);
  PeerSendState& peer_state(Context& c, int peer);

  /// wait_set_ = the frames' requests, then natives_, then extras[0..n); where each part
  /// ends (block(), block_some()).
  struct WaitSetEnds {
    std::size_t frames = 0, natives = 0, side = 0;
  };
  WaitSetEnds fill_wait_set(const MPI_Request* extras, int n);

  // Native requests the engine watches (backings, persistent and held natives).
  void watch(Op* op);
  void unwatch(Op* op);
  bool poll_natives();
  void on_native(Op* op, const MPI_Status& status, int error);
  /// Withdraws a receive's backing before a framed message is bound to it; false when
  /// the backing had matched a native first (the receive is then complete with it).
  bool unback(Op* op);
  /// Matches `m` now (Matcher::offer) and binds it, or handles the flush it is; a
  /// receive found taken (unback()) passes it on to the next receive that accepts it.
  void match(Message* m, const Arrival& a);
  /// The first frame of a sender on a context: blocking waits stop until its flush.
  void open_epoch(const protocol::Envelope& e);
  /// A native from `source` (rank in `c`) was matched: frames that waited for it become
  /// matchable (frames.h rule 10). They are matched by match_released(), never inside
  /// another match.
  void native_matched(const Context& c, int source);
  /// Matches the frames that native_matched() or arrive() released, in order.
  void match_released();
  /// The first frame of `m` arrived: what became matchable (Matcher::arrive) is matched
  /// behind the frames released before and not matched yet, so that each sender's
  /// messages keep their order (a native matched in the middle of a poll, found by a
  /// receive taken already, may have released earlier frames of the same sender).
  void arrive(Message* m, const Arrival& a);
  /// Takes the natives that waiting frames owe out of MPI's unexpected queue (rule 10).
  /// True when it took any.
  bool take_owed_natives();
  /// Binds `op` to a native taken out of MPI's queue: PMPI_Imrecv into its buffer, watched.
  void receive_taken(Op* op, Message* m);
  void on_flush(Message* marker);
  void on_flush_ack(const protocol::Envelope& e);
  void post_receive(Op* op);
  void on_frame(const protocol::Envelope& e, const char* payload);
  void on_sent(Op* op);
  void bind(Op* op, Message* m);
  void store(Message* m, const protocol::Envelope& e, const char* payload);
  void finish_receive(Op* op);
  /// A message whose last frame `e` just arrived: stamp_arrival(), then the message from
  /// the same VM that arrived before it (runtime_messages.h rule 2).
  void note_arrival(Message* m, const protocol::Envelope& e);
  /// Stamps t_r (and whether it is precise) on a message whose last frame `e` just arrived.
  void stamp_arrival(Message* m, const protocol::Envelope& e);
  /// The ACK rule: reports `m` to its source VM's daemon when op waited for it.
  void report_if_late(const Op& op, const Message& m);
  /// A message of world rank `source` received at `now` after a wait of `waited_s` (<= 0:
  /// none): counted into the receive waits of its VM (runtime_messages.h rule 5).
  void note_receive(int source, double waited_s, double now);
  void maybe_finish_send(Op* op);
  void complete(Op* op);
  void send_ack(const protocol::Envelope& of);
  void release(Op* op);

  /// stop(): says on stderr which senders' messages wait behind a gap, and counts them
  /// into lost_messages_.
  void report_gaps();
  /// The communicator of `c` is being freed (ContextRegistry's on_free): its held sends
  /// leave as frames, its peers stop counting as framing or flushing.
  void on_context_freed(Context& c);

  bool active_ = false;
  NativeMpi* mpi_ = &pmpi_native();  ///< set by start() / start_on()
  std::chrono::seconds stall_warning_{60};
  std::uint64_t max_message_bytes_ = FrameChecks::kDefaultMaxMessageBytes;
  bool adaptive_ = false;
  bool blocking_ = false;
  bool multithreaded_ = false;
  bool native_collectives_ = false;
  bool hook_installed_ = false;  ///< progress_hook.h: in both modes (frames waiting)
  bool frames_waiting_ = false;  ///< as last told to progress_hook::set_frames_waiting
  /// Tells the progress hook whether frames wait in the lanes, when that changed.
  void note_frames_waiting() {
    if (frames_.frames_waiting() == frames_waiting_) return;
    frames_waiting_ = !frames_waiting_;
    progress_hook::set_frames_waiting(frames_waiting_);
  }
  /// frames_.send(), then note_frames_waiting(): every message leaves this way.
  int send_message(const protocol::Envelope& e, const FrameIO::Payload& payload, Op* op) {
    const int frames = frames_.send(e, payload, op);
    note_frames_waiting();
    return frames;
  }
  std::vector<MPI_Request> natives_;   ///< contiguous for PMPI_Testsome / Waitany
  std::vector<Op*> native_ops_;        ///< native_ops_[i] owns natives_[i]
  std::vector<MPI_Request> wait_set_;  ///< block() scratch
  std::vector<int> some_indices_;      ///< block_some() scratch...
  std::vector<MPI_Status> some_statuses_;
  std::vector<std::pair<Op*, std::pair<MPI_Status, int>>> natives_done_;
  std::vector<int> done_indices_;
  std::vector<MPI_Status> done_statuses_;
  std::unordered_set<std::uint64_t> epochs_;  ///< epoch_key(sender world rank, context)
  static std::uint64_t epoch_key(int sender, int context) {
    return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(sender)) << 32) |
           static_cast<std::uint32_t>(context);
  }
  static int epoch_sender(std::uint64_t key) { return static_cast<int>(key >> 32); }
  static int epoch_context(std::uint64_t key) { return static_cast<int>(key & 0xffffffffu); }
  /// Frames released by native_matched() or arrive(), not matched yet (match_released()).
  std::deque<std::pair<Message*, Arrival>> released_;
  int framing_ = 0;  ///< peers this rank sends frames to (PeerSendState::framing)
  const mcm::Layout* layout_ = nullptr;
  FairLock mutex_;
  ContextRegistry contexts_;
  mcm::Doorbell doorbell_;
  FrameIO frames_;
  LateArrivals late_;
  bool reporting_ = false;  ///< a daemon serves this VM: late messages are reported
  /// Progress rounds further apart than this leave a gap in which arrivals are not timed.
  static constexpr double kPollGap = 1e-3;
  double last_progress_end_ = 0;        ///< when the previous progress() ended (arrival bounds)
  double gap_start_ = 0, gap_end_ = 0;  ///< the latest gap between progress rounds
  /// When the engine last left MPI (a progress round or a blocking wait ended).
  double in_mpi_until_ = 0;
  double outside_mpi_s_ = 0;       ///< outside_mpi_seconds()
  int in_native_collectives_ = 0;  ///< native_collective_begin() not yet ended
  /// The time from in_mpi_until_ to `start` was outside MPI, unless a native collective
  /// runs (then the rank is in MPI whatever the engine did).
  void add_outside_until(double start);
  double started_at_ = 0;
  ReceiveTally received_;
  /// When a message that completes at `now` reached this rank (t_r), by the rule of
  /// note_arrival(): now, or the start of the gap just ended. Sets `precise`.
  double arrival_at(double now, bool* precise) const;
  /// A blocking wait inside MPI that began at `start` just returned. MPI reads what is
  /// on the wire in its first turn, so a wait that lasted more than kPollGap found no
  /// frame at its start: what woke it (and what came with it) arrived during the wait,
  /// while the rank was in MPI, and is dated now, precisely (the frames of a direct
  /// detour bring no daemon's stamp, mcm/protocol/frames.h rule 7). A shorter wait changes nothing:
  /// its frame may have come during the gap before it.
  void note_blocked_in_mpi(double start);
  Matcher<Message, Op> matcher_;
  MPI_Comm self_ = MPI_COMM_NULL;  ///< private dup of MPI_COMM_SELF for unpacking
  std::unordered_map<MPI_Request, Op*> ops_;
  std::unordered_set<MPI_Message> probed_;
  std::unordered_set<MPI_Request> native_persistent_;
  std::unordered_map<std::uint64_t, Op*> awaiting_ack_;
  std::unordered_map<std::uint64_t, Message*> assembling_;     ///< (sender << 40 | msg_id)
  std::unordered_map<std::uint64_t, std::uint64_t> next_seq_;  ///< (dest << 32 | ctx)
  std::uint64_t next_msg_id_ = 1;
  int detached_ = 0;
  DetourTally detours_;
  Counters counters_;  ///< operations the application released before they finished
  std::size_t lost_messages_ = 0;
  SideChannel* side_ = nullptr;
};

}  // namespace mcm::engine
