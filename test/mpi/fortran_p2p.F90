! f77_p2p (include 'mpif.h') and f90_p2p (use mpi), from this one source:
! point-to-point from Fortran between pairs (even A -> odd B = A+1; with an
! odd size the last rank only joins collectives): Send/Recv with
! MPI_ANY_SOURCE/MPI_ANY_TAG and the status array fields (MPI_SOURCE,
! MPI_TAG, Get_count); Isend/Irecv with Waitall, Waitany and a Testall loop;
! Ssend; Bsend through MPI_Buffer_attach/detach (detached size checked);
! Sendrecv_replace ring; Probe + Get_count, then receive that count;
! persistent Send_init/Recv_init with Startall over 3 iterations; an
! MPI_Type_vector sent and received as contiguous; MPI_PROC_NULL (status
! source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0); MPI_STATUS_IGNORE and
! MPI_STATUSES_IGNORE. Rank 0 prints gathered results.
program p2p_fortran
#include "mcmt_fortran_head.inc"
  integer :: ierr, rank, nprocs, nfail, partner, i, k, it, cnt, idx, val, vtype, bsize, dsize
  logical :: isA, isB, flag, ok
  integer :: status(MPI_STATUS_SIZE), stats(MPI_STATUS_SIZE, 4)
  integer :: reqs(4), sbuf(20), rbuf(20)
  integer, allocatable :: big(:), bbuf(:)

  nfail = 0
  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  partner = ieor(rank, 1)
  if (partner >= nprocs) partner = MPI_PROC_NULL
  isA = partner /= MPI_PROC_NULL .and. mod(rank, 2) == 0
  isB = partner /= MPI_PROC_NULL .and. mod(rank, 2) == 1
  if (rank == 0) write(*,'(a,i0)') 'world size: ', nprocs
  allocate(big(100000))
  do i = 1, 20
    sbuf(i) = 100 * rank + i
  end do

  ! Send/Recv with wildcards and status fields
  val = -1
  if (isA) then
    call MPI_Send(sbuf, 3, MPI_INTEGER, partner, 7, MPI_COMM_WORLD, ierr)
    call MPI_Send(sbuf, 5, MPI_INTEGER, partner, 8, MPI_COMM_WORLD, ierr)
  else if (isB) then
    call MPI_Recv(rbuf, 20, MPI_INTEGER, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, status, ierr)
    call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
    ok = status(MPI_SOURCE) == partner .and. status(MPI_TAG) == 7 .and. cnt == 3
    call MPI_Recv(rbuf, 20, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
    call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
    ok = ok .and. status(MPI_SOURCE) == partner .and. status(MPI_TAG) == 8 .and. cnt == 5
    ok = ok .and. rbuf(5) == 100 * partner + 5
    call check(ok, 'send/recv wildcards and status')
    val = status(MPI_TAG) + cnt
  end if
  call gathered('send/recv any_source/any_tag (B: tag+count)', val)

  ! Isend/Irecv with Waitall, Waitany, Testall
  val = -1
  if (isA) then
    do k = 1, 3
      call MPI_Isend(sbuf(k), 1, MPI_INTEGER, partner, 10 + k, MPI_COMM_WORLD, reqs(k), ierr)
    end do
    call MPI_Waitall(3, reqs, stats, ierr)
    do k = 1, 3
      call MPI_Isend(sbuf(k), 1, MPI_INTEGER, partner, 20 + k, MPI_COMM_WORLD, reqs(k), ierr)
    end do
    call MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE, ierr)
    do k = 1, 3
      call MPI_Isend(sbuf(k), 1, MPI_INTEGER, partner, 30 + k, MPI_COMM_WORLD, reqs(k), ierr)
    end do
    call MPI_Waitall(3, reqs, MPI_STATUSES_IGNORE, ierr)
  else if (isB) then
    ok = .true.
    do k = 1, 3
      call MPI_Irecv(rbuf(k), 1, MPI_INTEGER, MPI_ANY_SOURCE, 10 + k, MPI_COMM_WORLD, reqs(k), ierr)
    end do
    call MPI_Waitall(3, reqs, stats, ierr)
    do k = 1, 3
      ok = ok .and. stats(MPI_SOURCE, k) == partner .and. stats(MPI_TAG, k) == 10 + k
      ok = ok .and. rbuf(k) == 100 * partner + k
    end do
    do k = 1, 3
      call MPI_Irecv(rbuf(k), 1, MPI_INTEGER, partner, 20 + k, MPI_COMM_WORLD, reqs(k), ierr)
    end do
    do i = 1, 3
      call MPI_Waitany(3, reqs, idx, status, ierr)
      ok = ok .and. status(MPI_TAG) == 20 + idx .and. reqs(idx) == MPI_REQUEST_NULL
    end do
    do k = 1, 3
      call MPI_Irecv(rbuf(k), 1, MPI_INTEGER, partner, MPI_ANY_TAG, MPI_COMM_WORLD, reqs(k), ierr)
    end do
    flag = .false.
    do while (.not. flag)
      call MPI_Testall(3, reqs, flag, stats, ierr)
    end do
    do k = 1, 3
      ok = ok .and. stats(MPI_TAG, k) == 30 + k .and. rbuf(k) == 100 * partner + k
    end do
    call check(ok, 'isend/irecv waitall/waitany/testall')
    val = merge(1, 0, ok)
  end if
  call gathered('waitall/waitany/testall', val)

  ! Ssend and Bsend
  val = -1
  if (isA) then
    call MPI_Ssend(sbuf, 2, MPI_INTEGER, partner, 40, MPI_COMM_WORLD, ierr)
    bsize = 4 * 100 + 2 * MPI_BSEND_OVERHEAD
    allocate(bbuf(bsize / 4 + 1))
    call MPI_Buffer_attach(bbuf, bsize, ierr)
    call MPI_Bsend(sbuf, 10, MPI_INTEGER, partner, 41, MPI_COMM_WORLD, ierr)
    sbuf(1) = -5
    call MPI_Buffer_detach(bbuf, dsize, ierr)
    call check(dsize == bsize, 'buffer detach size')
    sbuf(1) = 100 * rank + 1
    deallocate(bbuf)
    val = merge(1, 0, dsize == bsize)
  else if (isB) then
    call MPI_Recv(rbuf, 2, MPI_INTEGER, partner, 40, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    ok = rbuf(2) == 100 * partner + 2
    call MPI_Recv(rbuf, 10, MPI_INTEGER, partner, 41, MPI_COMM_WORLD, status, ierr)
    ok = ok .and. rbuf(1) == 100 * partner + 1 .and. rbuf(10) == 100 * partner + 10
    call check(ok, 'ssend/bsend')
    val = merge(1, 0, ok)
  end if
  call gathered('ssend, bsend with attach/detach', val)

  ! Sendrecv_replace ring, Probe + Get_count
  val = rank
  call MPI_Sendrecv_replace(val, 1, MPI_INTEGER, mod(rank + 1, nprocs), 50, MPI_ANY_SOURCE, 50, &
                            MPI_COMM_WORLD, status, ierr)
  call check(val == mod(rank + nprocs - 1, nprocs) .and. status(MPI_SOURCE) == val, 'sendrecv_replace')
  call gathered('sendrecv_replace ring', val)
  val = -1
  if (isA) then
    do i = 1, 100000
      big(i) = i + rank
    end do
    call MPI_Send(big, 77777, MPI_INTEGER, partner, 51, MPI_COMM_WORLD, ierr)
  else if (isB) then
    call MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
    call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
    call MPI_Recv(big, cnt, MPI_INTEGER, status(MPI_SOURCE), status(MPI_TAG), MPI_COMM_WORLD, &
                  MPI_STATUS_IGNORE, ierr)
    call check(cnt == 77777 .and. big(cnt) == cnt + partner, 'probe + get_count')
    val = cnt
  end if
  call gathered('probe count', val)

  ! Persistent requests with Startall
  val = -1
  if (isA) then
    call MPI_Send_init(sbuf(1), 1, MPI_INTEGER, partner, 60, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Send_init(sbuf(2), 1, MPI_INTEGER, partner, 61, MPI_COMM_WORLD, reqs(2), ierr)
  else if (isB) then
    call MPI_Recv_init(rbuf(1), 1, MPI_INTEGER, partner, 60, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Recv_init(rbuf(2), 1, MPI_INTEGER, MPI_ANY_SOURCE, 61, MPI_COMM_WORLD, reqs(2), ierr)
    val = 0
  end if
  if (isA .or. isB) then
    do it = 1, 3
      sbuf(1) = 1000 * it
      sbuf(2) = 1000 * it + 1
      call MPI_Startall(2, reqs, ierr)
      call MPI_Waitall(2, reqs, stats, ierr)
      if (isB) then
        call check(rbuf(1) == 1000 * it .and. rbuf(2) == 1000 * it + 1, 'persistent values')
        val = val + rbuf(1) + rbuf(2)
      end if
    end do
    call MPI_Request_free(reqs(1), ierr)
    call MPI_Request_free(reqs(2), ierr)
  end if
  call gathered('persistent startall (B: sum)', val)

  ! Derived type: vector of 4 blocks of 1, stride 3, received contiguous
  call MPI_Type_vector(4, 1, 3, MPI_INTEGER, vtype, ierr)
  call MPI_Type_commit(vtype, ierr)
  val = -1
  if (isA) then
    do i = 1, 20
      sbuf(i) = 100 * rank + i
    end do
    call MPI_Send(sbuf, 1, vtype, partner, 70, MPI_COMM_WORLD, ierr)
  else if (isB) then
    call MPI_Recv(rbuf, 4, MPI_INTEGER, partner, 70, MPI_COMM_WORLD, status, ierr)
    ok = .true.
    do i = 1, 4
      ok = ok .and. rbuf(i) == 100 * partner + 1 + 3 * (i - 1)
    end do
    call check(ok, 'vector type')
    val = rbuf(4) - 100 * partner
  end if
  call MPI_Type_free(vtype, ierr)
  call gathered('vector type last element', val)

  ! MPI_PROC_NULL
  rbuf(1) = 4242
  call MPI_Send(sbuf, 3, MPI_INTEGER, MPI_PROC_NULL, 80, MPI_COMM_WORLD, ierr)
  call MPI_Recv(rbuf, 3, MPI_INTEGER, MPI_PROC_NULL, 80, MPI_COMM_WORLD, status, ierr)
  call MPI_Get_count(status, MPI_INTEGER, cnt, ierr)
  ok = status(MPI_SOURCE) == MPI_PROC_NULL .and. status(MPI_TAG) == MPI_ANY_TAG .and. cnt == 0
  call check(ok .and. rbuf(1) == 4242, 'proc_null')
  call gathered('proc_null empty status', merge(1, 0, ok))

  deallocate(big)
  call finish(FLAVOUR // '_p2p')

contains

#include "mcmt_fortran.inc"

end program p2p_fortran
