// Drives the engine from inside Open MPI's progress loop while a rank is blocked in a
// native collective (mode adaptive), or in any MPI call while a flush is outstanding
// (mode adaptive) or frames wait in the shim's lanes (modes relay and adaptive).
//
// Why: a blocking collective run as its nonblocking twin plus an engine-driving wait
// (mcm_wait_progressing) keeps the engine answering its peers, but Open MPI's libnbc
// schedules cost: an 8-byte MPI_Allreduce on 4 VMs took 160-180 µs that way against
// 100 µs natively, and a halo solver with one reduction per step lost 7% to it. With the
// hook, the collective is Open MPI's own (tuned) algorithm, and every turn of its progress
// loop also turns the engine: frames from the daemon, flushes to acknowledge, held
// messages to release (frames.h rules 9-11) all keep moving while the rank waits.
//
// Contract:
//  - install() registers the hook with opal_progress_register(), found at run time
//    (dlsym); false (nothing registered) without it. Every rank of a job runs the same
//    Open MPI, so every rank decides alike: a blocking collective never meets the
//    nonblocking twin on another rank.
//  - While at least one thread is between collective_begin() and collective_end(), each
//    call of the hook takes the engine lock if nobody holds it (never waits, never
//    re-enters an engine call of its own thread: the engine's own MPI calls run Open MPI's
//    progress too) and runs one Engine::progress(), at most once per ms (per 50 µs while
//    one of the next two cases holds too): nothing of the rank's own waits for it there,
//    only its peers (frames to match, a flush to answer), for whom a ms counts at a switch.
//  - While a flush is outstanding (between flush_begin() and flush_end(), frames.h rule 11)
//    it does the same in every MPI call of every thread, whatever it is: a held send that
//    was copied has completed for the application (native_path.cpp, copied()), so MPI's
//    progress rule says it must reach its receiver even if the sender's next call is one
//    the engine does not drive (MPI_Comm_dup, MPI_Win_fence, a file operation, a wait on
//    an unmanaged communicator). Without this, a sender that went on into MPI_Comm_dup
//    kept its message back until the receiver, which needed it before joining the
//    MPI_Comm_dup, gave up (test/mpi/p2p_threads.c under flipping routes).
//  - While frames wait in the shim's lanes for room in their window (frame_io.h, between
//    set_frames_waiting(true) and set_frames_waiting(false)), likewise in every MPI call:
//    a send has started, and its later frames leave only as the engine turns, so MPI's
//    progress rule says they must reach a receiver that waits for them even while the
//    sender is in a call the engine does not drive (MPI_Comm_dup, MPI_Win_fence, a wait
//    on an unmanaged communicator).
//  - While a side channel is attached (side_channel.h: the collectives' agreement), in
//    every MPI call of every thread, it polls that channel alone, at most once per ms:
//    a rank asked for its answer may be in a call the engine does not drive
//    (MPI_Comm_dup after a non-root MPI_Gather that returned at once), and the asking
//    rank waits for that answer before a collective the first one will join only later.
//  - Otherwise it returns at once (three relaxed atomic loads; with a side channel, a
//    clock read).
//  - uninstall() unregisters it (Engine::stop, before MPI_Finalize).
#pragma once

namespace mcm::engine {

class Engine;

namespace progress_hook {

bool install(Engine& engine);
void uninstall();
void collective_begin();
void collective_end();
/// A peer's sends are held for a flush (PeerRoute::flushing): called under the lock.
void flush_begin();
void flush_end();
/// Frames wait in the engine's lanes (FrameIO::frames_waiting): called under the lock.
void set_frames_waiting(bool waiting);
/// A side channel is attached (Engine::attach): poll it from every MPI call.
void set_side_listening(bool listening);

}  // namespace progress_hook
}  // namespace mcm::engine
