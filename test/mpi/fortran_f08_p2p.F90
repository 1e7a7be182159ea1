! f08_p2p: point-to-point through `use mpi_f08` (whose bindings call Open MPI's
! ompi_*_f entry points, not mpi_*_), between pairs (even A -> odd B = A+1; with an
! odd size the last rank only joins collectives): Send/Recv with MPI_ANY_SOURCE /
! MPI_ANY_TAG and TYPE(MPI_Status) fields; Isend/Irecv with Waitall and Waitany;
! Ssend; Probe + Get_count; Mprobe + Mrecv; an Iprobe loop; a Sendrecv_replace ring
! over the whole world; a message on a communicator from MPI_Comm_split; MPI_PROC_NULL
! (source MPI_PROC_NULL, tag MPI_ANY_TAG, count 0). Rank 0 prints gathered results.
program f08_p2p
#include "mcmt_fortran_head.inc"
  integer :: rank, nprocs, nfail, partner, i, cnt, idx, val, half_rank
  logical :: isA, isB, ok, flag
  type(MPI_Status) :: status, stats(4)
  type(MPI_Request) :: reqs(4)
  type(MPI_Message) :: message
  type(MPI_Comm) :: half
  integer :: sbuf(20), rbuf(20), ring(3)

  nfail = 0
  call MPI_Init()
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  partner = ieor(rank, 1)
  if (partner >= nprocs) partner = MPI_PROC_NULL
  isA = partner /= MPI_PROC_NULL .and. mod(rank, 2) == 0
  isB = partner /= MPI_PROC_NULL .and. mod(rank, 2) == 1
  if (rank == 0) write(*,'(a,i0)') 'world size: ', nprocs
  do i = 1, 20
    sbuf(i) = 100 * rank + i
  end do

  ! Send/Recv with wildcards and status fields
  val = -1
  if (isA) then
    call MPI_Send(sbuf, 3, MPI_INTEGER, partner, 7, MPI_COMM_WORLD)
    call MPI_Send(sbuf, 5, MPI_INTEGER, partner, 8, MPI_COMM_WORLD)
  else if (isB) then
    call MPI_Recv(rbuf, 20, MPI_INTEGER, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, status)
    call MPI_Get_count(status, MPI_INTEGER, cnt)
    ok = status%MPI_SOURCE == partner .and. status%MPI_TAG == 7 .and. cnt == 3
    call MPI_Recv(rbuf, 20, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status)
    call MPI_Get_count(status, MPI_INTEGER, cnt)
    ok = ok .and. status%MPI_TAG == 8 .and. cnt == 5 .and. rbuf(5) == 100 * partner + 5
    call check(ok, 'send/recv wildcards and status')
    val = status%MPI_TAG + cnt
  end if
  call gathered('send/recv any_source/any_tag (B: tag+count)', val)

  ! Isend/Irecv both ways, Waitall; then Waitany over two receives
  val = -1
  if (isA .or. isB) then
    call MPI_Irecv(rbuf(1), 2, MPI_INTEGER, partner, 20, MPI_COMM_WORLD, reqs(1))
    call MPI_Irecv(rbuf(3), 2, MPI_INTEGER, partner, 21, MPI_COMM_WORLD, reqs(2))
    call MPI_Isend(sbuf(1), 2, MPI_INTEGER, partner, 21, MPI_COMM_WORLD, reqs(3))
    call MPI_Isend(sbuf(3), 2, MPI_INTEGER, partner, 20, MPI_COMM_WORLD, reqs(4))
    call MPI_Waitall(4, reqs, stats)
    ok = stats(1)%MPI_TAG == 20 .and. stats(2)%MPI_TAG == 21
    ok = ok .and. rbuf(1) == 100 * partner + 3 .and. rbuf(3) == 100 * partner + 1
    call MPI_Irecv(rbuf(1), 1, MPI_INTEGER, partner, 22, MPI_COMM_WORLD, reqs(1))
    call MPI_Irecv(rbuf(2), 1, MPI_INTEGER, partner, 23, MPI_COMM_WORLD, reqs(2))
    call MPI_Send(sbuf(9), 1, MPI_INTEGER, partner, 23, MPI_COMM_WORLD)
    call MPI_Waitany(2, reqs, idx, status)
    ok = ok .and. idx == 2 .and. status%MPI_TAG == 23
    ! tag 22 leaves only after both sides' Waitany returned: it cannot be the one that did
    call MPI_Sendrecv(sbuf(11), 1, MPI_INTEGER, partner, 24, rbuf(11), 1, MPI_INTEGER, &
                      partner, 24, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    call MPI_Send(sbuf(10), 1, MPI_INTEGER, partner, 22, MPI_COMM_WORLD)
    call MPI_Wait(reqs(1), MPI_STATUS_IGNORE)
    ok = ok .and. rbuf(1) == 100 * partner + 10 .and. rbuf(2) == 100 * partner + 9
    call check(ok, 'isend/irecv, waitall, waitany')
    val = idx
  end if
  call gathered('waitany index (1-based)', val)

  ! Ssend; Probe + Get_count; Mprobe + Mrecv; Iprobe loop
  val = -1
  if (isA) then
    call MPI_Ssend(sbuf, 4, MPI_INTEGER, partner, 30, MPI_COMM_WORLD)
    call MPI_Send(sbuf, 6, MPI_INTEGER, partner, 31, MPI_COMM_WORLD)
    call MPI_Send(sbuf, 2, MPI_INTEGER, partner, 32, MPI_COMM_WORLD)
  else if (isB) then
    call MPI_Probe(partner, MPI_ANY_TAG, MPI_COMM_WORLD, status)
    call MPI_Get_count(status, MPI_INTEGER, cnt)
    call MPI_Recv(rbuf, cnt, MPI_INTEGER, partner, status%MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    ok = cnt == 4 .and. rbuf(4) == 100 * partner + 4
    call MPI_Mprobe(MPI_ANY_SOURCE, 31, MPI_COMM_WORLD, message, status)
    call MPI_Get_count(status, MPI_INTEGER, cnt)
    call MPI_Mrecv(rbuf, cnt, MPI_INTEGER, message, status)
    ok = ok .and. cnt == 6 .and. rbuf(6) == 100 * partner + 6
    flag = .false.
    do while (.not. flag)
      call MPI_Iprobe(partner, 32, MPI_COMM_WORLD, flag, status)
    end do
    call MPI_Recv(rbuf, 20, MPI_INTEGER, partner, 32, MPI_COMM_WORLD, status)
    call MPI_Get_count(status, MPI_INTEGER, cnt)
    ok = ok .and. cnt == 2
    call check(ok, 'ssend, probe, mprobe/mrecv, iprobe')
    val = cnt
  end if
  call gathered('iprobe count', val)

  ! Sendrecv_replace ring over the world (crosses every VM boundary)
  ring = [rank, 10 * rank, 100 * rank]
  call MPI_Sendrecv_replace(ring, 3, MPI_INTEGER, mod(rank + 1, nprocs), 40, &
                            mod(rank + nprocs - 1, nprocs), 40, MPI_COMM_WORLD, status)
  ok = ring(3) == 100 * mod(rank + nprocs - 1, nprocs) .and. status%MPI_SOURCE == mod(rank + nprocs - 1, nprocs)
  call check(ok, 'sendrecv_replace ring')
  call gathered('ring: value from the left', ring(1))

  ! a communicator from MPI_Comm_split: the halves pass a token around
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half)
  call MPI_Comm_rank(half, half_rank)
  val = -1
  if (half_rank == 0) then
    call MPI_Send(rank, 1, MPI_INTEGER, MPI_PROC_NULL, 50, half)
  end if
  call MPI_Allreduce(rank, val, 1, MPI_INTEGER, MPI_MAX, half)
  if (half_rank == 1) call MPI_Send(rank, 1, MPI_INTEGER, 0, 51, half)
  if (half_rank == 0 .and. nprocs > 2) then
    call MPI_Recv(val, 1, MPI_INTEGER, MPI_ANY_SOURCE, 51, half, status)
    call check(status%MPI_SOURCE == 1 .and. val == rank + 2, 'split communicator message')
  end if
  call MPI_Comm_free(half)
  call gathered('split: max or token', val)

  ! MPI_PROC_NULL
  rbuf(1) = 4242
  call MPI_Recv(rbuf, 3, MPI_INTEGER, MPI_PROC_NULL, 80, MPI_COMM_WORLD, status)
  call MPI_Get_count(status, MPI_INTEGER, cnt)
  ok = status%MPI_SOURCE == MPI_PROC_NULL .and. status%MPI_TAG == MPI_ANY_TAG .and. cnt == 0
  call check(ok .and. rbuf(1) == 4242, 'proc_null')
  call gathered('proc_null empty status', merge(1, 0, ok))

  call finish('f08_p2p')

contains

#include "mcmt_fortran.inc"

end program f08_p2p
