! small_stream (Fortran, use mpi): the same stream as small_stream.c, for the Fortran
! entry points of libmcm (test/system/small_messages_test.sh).
!
! usage: small_stream_f90 SECONDS
! Rank 0 sends windows of 64 integer*8 messages to rank 1 (MPI_ISEND, every eighth an
! MPI_ISSEND; tags alternating 1 and 2), then MPI_WAITALL, for SECONDS; rank 1 posts the
! matching 64 MPI_IRECV per window and answers each window with one message. Every
! payload is the message's number in the stream (times 2, plus 1 in a window's last
! message when another follows); rank 1 checks each. Prints "small_stream: N messages in
! W windows, M out of order or corrupt" (rank 1). Exit status 1 on any mismatch.
program small_stream
  use mpi
  implicit none
  integer, parameter :: kWindow = 64
  integer :: ierr, rank, nranks, i, tag, more
  integer :: req(kWindow)
  integer(kind=8) :: buf(kWindow), answer, messages, windows, bad, all_bad
  double precision :: start, seconds
  character(len=32) :: arg

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nranks, ierr)
  seconds = 4.0d0
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) seconds
  end if
  if (nranks < 2) then
    if (rank == 0) print '(a)', 'small_stream: needs 2 ranks'
    call MPI_ABORT(MPI_COMM_WORLD, 2, ierr)
  end if
  messages = 0
  windows = 0
  bad = 0
  more = 1
  start = MPI_WTIME()
  if (rank == 0) then
    do while (more == 1)
      more = 0
      if (MPI_WTIME() - start < seconds) more = 1
      do i = 1, kWindow
        buf(i) = (messages + i - 1) * 2
        if (i == kWindow) buf(i) = buf(i) + more
        tag = 1 + mod(i - 1, 2)
        if (mod(i, 8) == 0) then
          call MPI_ISSEND(buf(i), 1, MPI_INTEGER8, 1, tag, MPI_COMM_WORLD, req(i), ierr)
        else
          call MPI_ISEND(buf(i), 1, MPI_INTEGER8, 1, tag, MPI_COMM_WORLD, req(i), ierr)
        end if
      end do
      call MPI_WAITALL(kWindow, req, MPI_STATUSES_IGNORE, ierr)
      call MPI_RECV(answer, 1, MPI_INTEGER8, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      if (answer /= windows) bad = bad + 1
      messages = messages + kWindow
      windows = windows + 1
    end do
  else if (rank == 1) then
    do while (more == 1)
      do i = 1, kWindow
        call MPI_IRECV(buf(i), 1, MPI_INTEGER8, 0, 1 + mod(i - 1, 2), MPI_COMM_WORLD, req(i), ierr)
      end do
      call MPI_WAITALL(kWindow, req, MPI_STATUSES_IGNORE, ierr)
      do i = 1, kWindow
        if (buf(i) / 2 /= messages + i - 1) bad = bad + 1
      end do
      more = int(mod(buf(kWindow), 2_8))
      call MPI_SEND(windows, 1, MPI_INTEGER8, 0, 3, MPI_COMM_WORLD, ierr)
      messages = messages + kWindow
      windows = windows + 1
    end do
    print '(a,i0,a,i0,a,i0,a)', 'small_stream: ', messages, ' messages in ', windows, &
      ' windows, ', bad, ' out of order or corrupt'
  end if
  call MPI_ALLREDUCE(bad, all_bad, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD, ierr)
  call MPI_FINALIZE(ierr)
  if (all_bad /= 0) stop 1
end program small_stream
