! f77_p2p_bridge (include 'mpif.h') and f90_p2p_bridge (use mpi), from this one source:
! the point-to-point calls whose Fortran arguments libmcm converts to C (the Fortran ->
! C bridges of relay mode), on a ring (right = rank + 1, left = rank - 1):
! Waitany/Waitsome/Testany/Testsome return 1-based indices and MPI_UNDEFINED;
! Test/Testall/Iprobe/Improbe/Request_get_status LOGICAL flags, false before the message
! is sent (a barrier orders it); Mprobe/Mrecv, Improbe/Imrecv and MPI_MESSAGE_NO_PROC;
! Cancel + Test_cancelled; Send_init/Ssend_init/Recv_init with Startall/Start and
! Request_free; Buffer_attach/Bsend/Ibsend/Buffer_detach; MPI_BOTTOM with absolute
! addresses; Ssend/Rsend/Issend/Irsend/Sendrecv_replace/Probe; arrays longer than the
! bridges' stack buffers; an array mixing an MPI_Ibarrier request with receives;
! MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE. Rank 0 prints gathered results.
program fortran_p2p_bridge
#include "mcmt_fortran_head.inc"
  integer, parameter :: nbig = 24
  integer :: ierr, rank, nprocs, nfail, right, left, i, j, k, idx, outcount, total, cnt
  integer :: status(MPI_STATUS_SIZE), stats(MPI_STATUS_SIZE, 2 * nbig)
  integer :: reqs(2 * nbig), sreqs(nbig), indices(2 * nbig)
  integer :: x, msg, bsize
  integer :: preq(2)
  ! Read or written by MPI after the call that named them returned (nonblocking and
  ! persistent operations): volatile, so that the compiler neither delays nor caches them.
  integer, volatile :: rbuf(2 * nbig), sbuf(2 * nbig), y, pval_s, pval_r
  logical :: flag, seen(2 * nbig)
  integer :: bbuf(4096)
  integer :: bot_s(3), stype, rtype
  integer, volatile :: bot_r(3)   ! written by MPI through its address (MPI_BOTTOM)
  integer(kind=MPI_ADDRESS_KIND) :: addr(1)
  integer :: blens(1)

  nfail = 0
  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call check(nprocs >= 2, 'world size < 2')
  right = mod(rank + 1, nprocs)
  left = mod(rank + nprocs - 1, nprocs)
  if (rank == 0) write(*,'(a,i0)') 'world size: ', nprocs

  ! --- Waitany: three receives, 1-based indices, then MPI_UNDEFINED -------------------
  do i = 1, 3
    call MPI_Irecv(rbuf(i), 1, MPI_INTEGER, left, 10 + i, MPI_COMM_WORLD, reqs(i), ierr)
  end do
  do i = 3, 1, -1
    sbuf(i) = 100 * rank + i
    call MPI_Isend(sbuf(i), 1, MPI_INTEGER, right, 10 + i, MPI_COMM_WORLD, sreqs(i), ierr)
  end do
  seen = .false.
  total = 0
  do k = 1, 3
    call MPI_Waitany(3, reqs, idx, status, ierr)
    call check(ierr == MPI_SUCCESS, 'waitany ierr')
    call check(idx >= 1 .and. idx <= 3, 'waitany index in 1..3')
    if (idx >= 1 .and. idx <= 3) then
      call check(.not. seen(idx), 'waitany index twice')
      seen(idx) = .true.
      call check(reqs(idx) == MPI_REQUEST_NULL, 'waitany request freed')
      call check(status(MPI_TAG) == 10 + idx, 'waitany status tag')
      call check(status(MPI_SOURCE) == left, 'waitany status source')
      call check(rbuf(idx) == 100 * left + idx, 'waitany value')
      total = total + idx
    end if
  end do
  call MPI_Waitany(3, reqs, idx, status, ierr)
  call check(idx == MPI_UNDEFINED, 'waitany on null requests: MPI_UNDEFINED')
  call MPI_Waitall(3, sreqs, MPI_STATUSES_IGNORE, ierr)
  call check(all(sreqs(1:3) == MPI_REQUEST_NULL), 'waitall frees sends')
  call gathered('waitany index sum', total)

  ! --- Waitsome: four receives ---------------------------------------------------------
  do i = 1, 4
    call MPI_Irecv(rbuf(i), 1, MPI_INTEGER, left, 20 + i, MPI_COMM_WORLD, reqs(i), ierr)
    sbuf(i) = 1000 * rank + i
    call MPI_Isend(sbuf(i), 1, MPI_INTEGER, right, 20 + i, MPI_COMM_WORLD, sreqs(i), ierr)
  end do
  seen = .false.
  cnt = 0
  do
    call MPI_Waitsome(4, reqs, outcount, indices, stats, ierr)
    if (outcount == MPI_UNDEFINED) exit
    call check(outcount >= 1 .and. outcount <= 4, 'waitsome outcount')
    do j = 1, outcount
      idx = indices(j)
      call check(idx >= 1 .and. idx <= 4, 'waitsome index in 1..4')
      if (idx < 1 .or. idx > 4) cycle
      call check(.not. seen(idx), 'waitsome index twice')
      seen(idx) = .true.
      cnt = cnt + 1
      call check(reqs(idx) == MPI_REQUEST_NULL, 'waitsome request freed')
      call check(stats(MPI_TAG, j) == 20 + idx, 'waitsome status tag')
      call check(stats(MPI_SOURCE, j) == left, 'waitsome status source')
      call check(rbuf(idx) == 1000 * left + idx, 'waitsome value')
    end do
  end do
  call check(cnt == 4, 'waitsome completed all four')
  call MPI_Waitall(4, sreqs, stats, ierr)
  call gathered('waitsome completed', cnt)

  ! --- Not yet sent: flags false, indices MPI_UNDEFINED / 0 ------------------------------
  ! reqs(1:3) = null, null, receive tag 30 (Testany/Testsome must report index 3)
  reqs(1) = MPI_REQUEST_NULL
  reqs(2) = MPI_REQUEST_NULL
  call MPI_Irecv(rbuf(1), 1, MPI_INTEGER, left, 30, MPI_COMM_WORLD, reqs(3), ierr)
  call MPI_Irecv(rbuf(2), 1, MPI_INTEGER, left, 31, MPI_COMM_WORLD, reqs(4), ierr)
  call MPI_Irecv(rbuf(3), 1, MPI_INTEGER, left, 32, MPI_COMM_WORLD, reqs(5), ierr)
  call MPI_Irecv(rbuf(4), 1, MPI_INTEGER, left, 33, MPI_COMM_WORLD, reqs(6), ierr)
  flag = .true.
  idx = -5
  call MPI_Testany(3, reqs, idx, flag, status, ierr)
  call check(.not. flag, 'testany flag false before the send')
  call check(idx == MPI_UNDEFINED, 'testany index MPI_UNDEFINED before the send')
  outcount = -5
  call MPI_Testsome(3, reqs, outcount, indices, stats, ierr)
  call check(outcount == 0, 'testsome outcount 0 before the send')
  flag = .true.
  call MPI_Test(reqs(4), flag, status, ierr)
  call check(.not. flag, 'test flag false before the send')
  call check(reqs(4) /= MPI_REQUEST_NULL, 'test keeps an incomplete request')
  flag = .true.
  call MPI_Request_get_status(reqs(5), flag, status, ierr)
  call check(.not. flag, 'request_get_status false before the send')
  flag = .true.
  call MPI_Testall(2, reqs(5:6), flag, stats, ierr)
  call check(.not. flag, 'testall flag false before the send')
  flag = .true.
  call MPI_Iprobe(left, 34, MPI_COMM_WORLD, flag, status, ierr)
  call check(.not. flag, 'iprobe flag false before the send')
  flag = .true.
  msg = -5
  call MPI_Improbe(left, 34, MPI_COMM_WORLD, flag, msg, status, ierr)
  call check(.not. flag, 'improbe flag false before the send')
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  do i = 30, 34
    x = 10000 * rank + i
    call MPI_Send(x, 1, MPI_INTEGER, right, i, MPI_COMM_WORLD, ierr)
  end do

  ! Now they complete
  flag = .false.
  do while (.not. flag)
    call MPI_Testany(3, reqs, idx, flag, status, ierr)
  end do
  call check(idx == 3, 'testany index 3 (1-based)')
  call check(reqs(3) == MPI_REQUEST_NULL, 'testany frees')
  call check(status(MPI_TAG) == 30 .and. rbuf(1) == 10000 * left + 30, 'testany status/value')
  call MPI_Testany(3, reqs, idx, flag, status, ierr)
  call check(flag .and. idx == MPI_UNDEFINED, 'testany on null requests: flag and MPI_UNDEFINED')
  ! Testsome on (null, null, tag 31) through reqs(2:4)
  outcount = 0
  do while (outcount == 0)
    call MPI_Testsome(3, reqs(2:4), outcount, indices, stats, ierr)
  end do
  call check(outcount == 1, 'testsome outcount 1')
  call check(indices(1) == 3, 'testsome index 3 (1-based)')
  call check(reqs(4) == MPI_REQUEST_NULL, 'testsome frees')
  call check(stats(MPI_TAG, 1) == 31 .and. rbuf(2) == 10000 * left + 31, 'testsome status/value')
  call MPI_Testsome(3, reqs(2:4), outcount, indices, stats, ierr)
  call check(outcount == MPI_UNDEFINED, 'testsome on null requests: MPI_UNDEFINED')
  ! Request_get_status does not free; Wait does. (Open MPI 4.1's own Fortran binding
  ! answers .FALSE. whenever the status is MPI_STATUS_IGNORE: its flag is not checked.)
  flag = .false.
  do while (.not. flag)
    call MPI_Request_get_status(reqs(5), flag, status, ierr)
  end do
  call check(reqs(5) /= MPI_REQUEST_NULL, 'request_get_status keeps the request')
  call check(status(MPI_TAG) == 32, 'request_get_status status')
  call MPI_Request_get_status(reqs(5), flag, MPI_STATUS_IGNORE, ierr)
  call check(ierr == MPI_SUCCESS .and. reqs(5) /= MPI_REQUEST_NULL, 'request_get_status ignore')
  ! Testall on (tag 32 done, tag 33)
  flag = .false.
  do while (.not. flag)
    call MPI_Testall(2, reqs(5:6), flag, stats, ierr)
  end do
  call check(reqs(5) == MPI_REQUEST_NULL .and. reqs(6) == MPI_REQUEST_NULL, 'testall frees')
  call check(stats(MPI_TAG, 1) == 32 .and. stats(MPI_TAG, 2) == 33, 'testall statuses')
  call check(rbuf(3) == 10000 * left + 32 .and. rbuf(4) == 10000 * left + 33, 'testall values')
  ! Improbe + Imrecv (tag 34)
  flag = .false.
  do while (.not. flag)
    call MPI_Improbe(left, 34, MPI_COMM_WORLD, flag, msg, status, ierr)
  end do
  call check(msg /= MPI_MESSAGE_NULL, 'improbe message')
  call check(status(MPI_SOURCE) == left .and. status(MPI_TAG) == 34, 'improbe status')
  call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
  call check(cnt == 1, 'improbe count')
  y = -1
  call MPI_Imrecv(y, 1, MPI_INTEGER, msg, reqs(1), ierr)
  call check(msg == MPI_MESSAGE_NULL, 'imrecv consumes the message')
  call MPI_Wait(reqs(1), status, ierr)
  call check(reqs(1) == MPI_REQUEST_NULL, 'wait frees')
  call check(y == 10000 * left + 34, 'imrecv value')
  call gathered('flags and indices', 10000 * left + 34 - y)

  ! --- Probe, Mprobe/Mrecv, MPI_MESSAGE_NO_PROC -----------------------------------------
  do i = 1, 3
    x = 50 * rank + i
    call MPI_Send(x, 1, MPI_INTEGER, right, 40 + i, MPI_COMM_WORLD, ierr)
  end do
  call MPI_Probe(left, 41, MPI_COMM_WORLD, status, ierr)
  call check(status(MPI_SOURCE) == left .and. status(MPI_TAG) == 41, 'probe status')
  call MPI_Recv(y, 1, MPI_INTEGER, left, 41, MPI_COMM_WORLD, status, ierr)
  call check(y == 50 * left + 1, 'probe then recv')
  total = 0
  do i = 3, 2, -1
    call MPI_Mprobe(left, 40 + i, MPI_COMM_WORLD, msg, status, ierr)
    call check(msg /= MPI_MESSAGE_NULL, 'mprobe message')
    call check(status(MPI_TAG) == 40 + i, 'mprobe status tag')
    y = -1
    call MPI_Mrecv(y, 1, MPI_INTEGER, msg, status, ierr)
    call check(msg == MPI_MESSAGE_NULL, 'mrecv consumes the message')
    call check(y == 50 * left + i .and. status(MPI_TAG) == 40 + i, 'mrecv value/status')
    total = total + y
  end do
  call MPI_Mprobe(MPI_PROC_NULL, 0, MPI_COMM_WORLD, msg, status, ierr)
  call check(msg == MPI_MESSAGE_NO_PROC, 'mprobe proc_null: MPI_MESSAGE_NO_PROC')
  call MPI_Mrecv(y, 1, MPI_INTEGER, msg, status, ierr)
  call check(msg == MPI_MESSAGE_NULL, 'mrecv no_proc consumes')
  call check(status(MPI_SOURCE) == MPI_PROC_NULL, 'mrecv no_proc status source')
  call gathered('mprobe/mrecv sums', total)

  ! --- Cancel --------------------------------------------------------------------------
  call MPI_Irecv(y, 1, MPI_INTEGER, left, 99, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Cancel(reqs(1), ierr)
  call MPI_Wait(reqs(1), status, ierr)
  call check(reqs(1) == MPI_REQUEST_NULL, 'cancelled receive freed by wait')
  call MPI_Test_cancelled(status, flag, ierr)
  call check(flag, 'test_cancelled true')
  if (rank == 0) write(*,'(a,l1)') 'receive cancelled: ', flag

  ! --- Persistent requests: Startall, Start, Request_free ------------------------------
  call MPI_Recv_init(pval_r, 1, MPI_INTEGER, left, 60, MPI_COMM_WORLD, preq(1), ierr)
  call MPI_Send_init(pval_s, 1, MPI_INTEGER, right, 60, MPI_COMM_WORLD, preq(2), ierr)
  total = 0
  do k = 1, 3
    pval_s = 10 * rank + k
    call MPI_Startall(2, preq, ierr)
    call MPI_Waitall(2, preq, stats, ierr)
    call check(preq(1) /= MPI_REQUEST_NULL .and. preq(2) /= MPI_REQUEST_NULL, &
               'persistent requests survive waitall')
    call check(pval_r == 10 * left + k .and. stats(MPI_TAG, 1) == 60, 'persistent value')
    total = total + pval_r
  end do
  pval_s = -rank
  call MPI_Start(preq(1), ierr)
  call MPI_Start(preq(2), ierr)
  call MPI_Wait(preq(2), MPI_STATUS_IGNORE, ierr)
  call MPI_Wait(preq(1), status, ierr)
  call check(pval_r == -left, 'persistent start/wait')
  call MPI_Request_free(preq(1), ierr)
  call MPI_Request_free(preq(2), ierr)
  call check(preq(1) == MPI_REQUEST_NULL .and. preq(2) == MPI_REQUEST_NULL, 'request_free')
  call MPI_Ssend_init(pval_s, 1, MPI_INTEGER, right, 61, MPI_COMM_WORLD, preq(2), ierr)
  call MPI_Recv_init(pval_r, 1, MPI_INTEGER, left, 61, MPI_COMM_WORLD, preq(1), ierr)
  pval_s = 7 * rank
  call MPI_Startall(2, preq, ierr)
  call MPI_Waitall(2, preq, MPI_STATUSES_IGNORE, ierr)
  call check(pval_r == 7 * left, 'ssend_init value')
  call MPI_Request_free(preq(1), ierr)
  call MPI_Request_free(preq(2), ierr)
  call gathered('persistent sums', total)

  ! --- Buffered sends: Buffer_attach, Bsend, Ibsend, Buffer_detach ----------------------
  call MPI_Buffer_attach(bbuf, 4 * size(bbuf), ierr)
  call check(ierr == MPI_SUCCESS, 'buffer_attach')
  do i = 1, 3
    sbuf(i) = 70 * rank + i
    call MPI_Bsend(sbuf(i), 1, MPI_INTEGER, right, 70 + i, MPI_COMM_WORLD, ierr)
  end do
  sbuf(4) = 70 * rank + 4
  call MPI_Ibsend(sbuf(4), 1, MPI_INTEGER, right, 74, MPI_COMM_WORLD, sreqs(1), ierr)
  call MPI_Wait(sreqs(1), MPI_STATUS_IGNORE, ierr)
  total = 0
  do i = 4, 1, -1
    call MPI_Recv(y, 1, MPI_INTEGER, left, 70 + i, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call check(y == 70 * left + i, 'bsend value')
    total = total + y
  end do
  bsize = -1
  call MPI_Buffer_detach(bbuf, bsize, ierr)
  call check(ierr == MPI_SUCCESS, 'buffer_detach')
  call check(bsize == 4 * size(bbuf), 'buffer_detach size')
  call gathered('bsend sums', total)
  if (rank == 0) write(*,'(a,i0)') 'detached bytes: ', bsize

  ! --- MPI_BOTTOM with absolute addresses ------------------------------------------------
  bot_s = (/ rank, 2 * rank, 3 * rank /)
  bot_r = -1
  blens(1) = 3
  call MPI_Get_address(bot_s, addr(1), ierr)
  call MPI_Type_create_hindexed(1, blens, addr, MPI_INTEGER, stype, ierr)
  call MPI_Type_commit(stype, ierr)
  call MPI_Get_address(bot_r, addr(1), ierr)
  call MPI_Type_create_hindexed(1, blens, addr, MPI_INTEGER, rtype, ierr)
  call MPI_Type_commit(rtype, ierr)
  call MPI_Sendrecv(MPI_BOTTOM, 1, stype, right, 80, MPI_BOTTOM, 1, rtype, left, 80, &
                    MPI_COMM_WORLD, status, ierr)
  call check_bottom(left, 'sendrecv MPI_BOTTOM')
  bot_r = -1
  call MPI_Irecv(MPI_BOTTOM, 1, rtype, left, 81, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Send(MPI_BOTTOM, 1, stype, right, 81, MPI_COMM_WORLD, ierr)
  call MPI_Wait(reqs(1), status, ierr)
  call check_bottom(left, 'irecv/send MPI_BOTTOM')
  call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
  call check(cnt == 3, 'MPI_BOTTOM count')
  call MPI_Type_free(stype, ierr)
  call MPI_Type_free(rtype, ierr)
  call gathered('MPI_BOTTOM received', bot_r(1) + bot_r(2) + bot_r(3))

  ! --- Modes: Ssend, Rsend, Issend, Irsend, Sendrecv_replace ----------------------------
  call MPI_Irecv(rbuf(1), 1, MPI_INTEGER, left, 90, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Irecv(rbuf(2), 1, MPI_INTEGER, left, 91, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Irecv(rbuf(3), 1, MPI_INTEGER, left, 92, MPI_COMM_WORLD, reqs(3), ierr)
  call MPI_Irecv(rbuf(4), 1, MPI_INTEGER, left, 93, MPI_COMM_WORLD, reqs(4), ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)   ! receives posted: ready sends are legal
  do i = 1, 4
    sbuf(i) = 900 * rank + i
  end do
  call MPI_Issend(sbuf(1), 1, MPI_INTEGER, right, 90, MPI_COMM_WORLD, sreqs(1), ierr)
  call MPI_Irsend(sbuf(2), 1, MPI_INTEGER, right, 91, MPI_COMM_WORLD, sreqs(2), ierr)
  call MPI_Rsend(sbuf(3), 1, MPI_INTEGER, right, 92, MPI_COMM_WORLD, ierr)
  call MPI_Ssend(sbuf(4), 1, MPI_INTEGER, right, 93, MPI_COMM_WORLD, ierr)
  call MPI_Waitall(4, reqs, stats, ierr)
  call MPI_Waitall(2, sreqs, stats(:, 5:6), ierr)
  total = 0
  do i = 1, 4
    call check(rbuf(i) == 900 * left + i .and. stats(MPI_TAG, i) == 89 + i, 'modes value')
    total = total + rbuf(i)
  end do
  x = rank
  call MPI_Sendrecv_replace(x, 1, MPI_INTEGER, right, 95, left, 95, MPI_COMM_WORLD, status, ierr)
  call check(x == left .and. status(MPI_SOURCE) == left, 'sendrecv_replace')
  call gathered('modes sums', total)

  ! --- Arrays longer than the bridges' stack buffers, mixed with a native request -------
  do i = 1, nbig
    call MPI_Irecv(rbuf(i), 1, MPI_INTEGER, MPI_ANY_SOURCE, 100, MPI_COMM_WORLD, reqs(i), ierr)
  end do
  do i = 1, nbig
    sbuf(i) = 1000 * rank + i
    call MPI_Isend(sbuf(i), 1, MPI_INTEGER, right, 100, MPI_COMM_WORLD, reqs(nbig + i), ierr)
  end do
  call MPI_Waitall(2 * nbig, reqs, stats, ierr)
  total = 0
  do i = 1, nbig
    ! messages from one sender with one tag arrive in order
    call check(rbuf(i) == 1000 * left + i .and. stats(MPI_SOURCE, i) == left, 'big waitall')
    total = total + rbuf(i) - 1000 * left
  end do
  call check(all(reqs(1:2 * nbig) == MPI_REQUEST_NULL), 'big waitall frees all')
  call gathered('big waitall sums', total)
  ! Waitsome over receives + an Ibarrier (native) in the middle
  do i = 1, nbig
    call MPI_Irecv(rbuf(i), 1, MPI_INTEGER, left, 200 + i, MPI_COMM_WORLD, reqs(i), ierr)
  end do
  call MPI_Ibarrier(MPI_COMM_WORLD, reqs(nbig + 1), ierr)
  do i = 1, nbig
    call MPI_Isend(sbuf(i), 1, MPI_INTEGER, right, 200 + i, MPI_COMM_WORLD, sreqs(i), ierr)
  end do
  seen = .false.
  cnt = 0
  do
    call MPI_Waitsome(nbig + 1, reqs, outcount, indices, MPI_STATUSES_IGNORE, ierr)
    if (outcount == MPI_UNDEFINED) exit
    do j = 1, outcount
      idx = indices(j)
      call check(idx >= 1 .and. idx <= nbig + 1, 'mixed waitsome index')
      if (idx < 1 .or. idx > nbig + 1) cycle
      call check(.not. seen(idx) .and. reqs(idx) == MPI_REQUEST_NULL, 'mixed waitsome once')
      seen(idx) = .true.
      cnt = cnt + 1
      if (idx <= nbig) call check(rbuf(idx) == 1000 * left + idx, 'mixed waitsome value')
    end do
  end do
  call check(cnt == nbig + 1, 'mixed waitsome completed all')
  call MPI_Waitall(nbig, sreqs, MPI_STATUSES_IGNORE, ierr)
  call gathered('mixed waitsome completed', cnt)

  call finish(FLAVOUR // '_p2p_bridge')

contains

  subroutine check_bottom(from, what)
    integer, intent(in) :: from
    character(len=*), intent(in) :: what
    call check(bot_r(1) == from .and. bot_r(2) == 2 * from .and. bot_r(3) == 3 * from, what)
  end subroutine check_bottom

#include "mcmt_fortran.inc"

end program fortran_p2p_bridge
