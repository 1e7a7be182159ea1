! f77_basic (include 'mpif.h') and f90_basic (use mpi), from this one source:
! MPI_COMM_WORLD size/rank; Comm_group/Group_size/
! Group_translate_ranks and Comm_compare on world (IDENT/CONGRUENT/UNEQUAL);
! Send/Recv ring and Isend/Irecv/Waitall with MPI_ANY_SOURCE (statuses must
! carry world ranks); Allreduce/Bcast/Alltoall on world; Comm_split and
! Comm_dup with traffic inside them; MPI_STATUS_IGNORE/MPI_STATUSES_IGNORE
! on world. Rank 0 prints gathered results.
program fortran_basic
#include "mcmt_fortran_head.inc"
  integer :: ierr, rank, nprocs, nfail, i, x, y, res, src
  integer :: wgroup, sgroup, gsize, split, dup, srank, ssize
  integer :: status(MPI_STATUS_SIZE)
  integer, allocatable :: sbuf(:), rbuf(:), reqs(:), stats(:,:), ranks(:), tr(:)

  nfail = 0
  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call check(nprocs >= 2, 'world size < 2')
  if (rank == 0) write(*,'(a,i0)') 'world size: ', nprocs
  call gathered('world ranks', rank)
  allocate(sbuf(nprocs), rbuf(nprocs), reqs(2*nprocs), stats(MPI_STATUS_SIZE, 2*nprocs))
  allocate(ranks(nprocs), tr(nprocs))

  ! Groups and comparisons
  call MPI_Comm_group(MPI_COMM_WORLD, wgroup, ierr)
  call MPI_Group_size(wgroup, gsize, ierr)
  call check(gsize == nprocs, 'world group size')
  do i = 1, (nprocs + 1) / 2
    ranks(i) = 2 * (i - 1)
  end do
  call MPI_Group_incl(wgroup, (nprocs + 1) / 2, ranks, sgroup, ierr)
  do i = 1, nprocs
    ranks(i) = i - 1
  end do
  call MPI_Group_translate_ranks(wgroup, nprocs, ranks, sgroup, tr, ierr)
  do i = 1, nprocs
    if (mod(i - 1, 2) == 0) then
      call check(tr(i) == (i - 1) / 2, 'translate even')
    else
      call check(tr(i) == MPI_UNDEFINED, 'translate odd')
    end if
  end do
  call MPI_Group_free(sgroup, ierr)
  call MPI_Group_free(wgroup, ierr)
  if (rank == 0) write(*,'(a,i0)') 'world group size: ', gsize
  call MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, res, ierr)
  call check(res == MPI_IDENT, 'compare world/world')
  if (rank == 0) write(*,'(a,l1)') 'compare world/world IDENT: ', res == MPI_IDENT
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call MPI_Comm_compare(MPI_COMM_WORLD, dup, res, ierr)
  call check(res == MPI_CONGRUENT, 'compare world/dup')
  if (rank == 0) write(*,'(a,l1)') 'compare world/dup CONGRUENT: ', res == MPI_CONGRUENT
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, split, ierr)
  call MPI_Comm_compare(MPI_COMM_WORLD, split, res, ierr)
  call check(res == MPI_UNEQUAL, 'compare world/split')
  if (rank == 0) write(*,'(a,l1)') 'compare world/split UNEQUAL: ', res == MPI_UNEQUAL

  ! Send/Recv ring, odd ranks receive first
  x = 1000 + rank
  if (mod(rank, 2) == 0) then
    call MPI_Send(x, 1, MPI_INTEGER, mod(rank + 1, nprocs), 1, MPI_COMM_WORLD, ierr)
    call MPI_Recv(y, 1, MPI_INTEGER, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, status, ierr)
  else
    call MPI_Recv(y, 1, MPI_INTEGER, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, status, ierr)
    call MPI_Send(x, 1, MPI_INTEGER, mod(rank + 1, nprocs), 1, MPI_COMM_WORLD, ierr)
  end if
  src = mod(rank + nprocs - 1, nprocs)
  call check(y == 1000 + src .and. status(MPI_SOURCE) == src, 'ring')
  call gathered('ring received', y)

  ! Isend/Irecv all-to-all with ANY_SOURCE
  do i = 1, nprocs
    sbuf(i) = 100 * rank + (i - 1)
    call MPI_Irecv(rbuf(i), 1, MPI_INTEGER, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, reqs(i), ierr)
  end do
  do i = 1, nprocs
    call MPI_Isend(sbuf(i), 1, MPI_INTEGER, i - 1, 2, MPI_COMM_WORLD, reqs(nprocs + i), ierr)
  end do
  call MPI_Waitall(2 * nprocs, reqs, stats, ierr)
  y = 0
  do i = 1, nprocs
    src = stats(MPI_SOURCE, i)
    call check(src >= 0 .and. src < nprocs, 'irecv source')
    call check(rbuf(i) == 100 * src + rank, 'irecv value')
    y = y + rbuf(i)
  end do
  call gathered('isend/irecv sums', y)

  ! Collectives
  call MPI_Allreduce(rank, y, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call check(y == nprocs * (nprocs - 1) / 2, 'allreduce')
  if (rank == 0) write(*,'(a,i0)') 'allreduce sum: ', y
  x = -1
  if (rank == nprocs - 1) x = 777
  call MPI_Bcast(x, 1, MPI_INTEGER, nprocs - 1, MPI_COMM_WORLD, ierr)
  call check(x == 777, 'bcast')
  if (rank == 0) write(*,'(a,i0)') 'bcast: ', x
  do i = 1, nprocs
    sbuf(i) = 100 * rank + (i - 1)
  end do
  call MPI_Alltoall(sbuf, 1, MPI_INTEGER, rbuf, 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  y = 0
  do i = 1, nprocs
    call check(rbuf(i) == 100 * (i - 1) + rank, 'alltoall')
    y = y + rbuf(i)
  end do
  call gathered('alltoall sums', y)

  ! Split and dup traffic
  call MPI_Comm_rank(split, srank, ierr)
  call MPI_Comm_size(split, ssize, ierr)
  call check(srank == rank / 2, 'split rank')
  call MPI_Allreduce(rank, y, 1, MPI_INTEGER, MPI_SUM, split, ierr)
  call gathered('split allreduce', y)
  call MPI_Comm_rank(dup, srank, ierr)
  call check(srank == rank, 'dup rank')
  x = rank
  call MPI_Sendrecv(x, 1, MPI_INTEGER, mod(rank + 1, nprocs), 3, y, 1, MPI_INTEGER, &
                    MPI_ANY_SOURCE, 3, dup, status, ierr)
  call check(status(MPI_SOURCE) == mod(rank + nprocs - 1, nprocs), 'dup sendrecv source')
  call gathered('dup sendrecv', y)
  ! MPI_STATUS_IGNORE / MPI_STATUSES_IGNORE sentinels on world
  x = 10 * rank
  call MPI_Sendrecv(x, 1, MPI_INTEGER, mod(rank + nprocs - 1, nprocs), 5, y, 1, MPI_INTEGER, &
                    mod(rank + 1, nprocs), 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
  call check(y == 10 * mod(rank + 1, nprocs), 'sendrecv status_ignore')
  call MPI_Irecv(y, 1, MPI_INTEGER, MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_Isend(x, 1, MPI_INTEGER, mod(rank + 1, nprocs), 6, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call check(y == 10 * mod(rank + nprocs - 1, nprocs), 'waitall statuses_ignore')
  call gathered('statuses_ignore ring', y)
  call MPI_Comm_free(split, ierr)
  call MPI_Comm_free(dup, ierr)

  call finish(FLAVOUR // '_basic')

contains

#include "mcmt_fortran.inc"

end program fortran_basic
