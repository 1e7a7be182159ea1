! f77_coll (include 'mpif.h'), f90_coll (use mpi) and f08_coll (use mpi_f08), from this
! one source: the covered blocking collectives, whose Fortran entry points libmcm bridges
! to its own C wrappers (generator/special.txt KIND collective), each result checked on
! every rank against a closed form: Barrier; Bcast; Reduce and Allreduce (MPI_SUM,
! MPI_MAX, MPI_PROD); Allgather, Alltoall, Gather,
! Scatter, Reduce_scatter_block; MPI_IN_PLACE wherever these take it (Allreduce, Reduce
! at the root, Allgather, Gather at the root, Scatter at the root, Alltoall,
! Reduce_scatter_block); the v-variants (Allgatherv, Alltoallv, Gatherv, Scatterv,
! Reduce_scatter) with irregular counts and displacements in reverse rank order that
! leave gaps, which must stay untouched; roots other than 0; a communicator from
! MPI_Comm_split in reverse rank order; MPI_BOTTOM with an absolute-address datatype
! (Bcast, and Gather's send buffer); ierr written as MPI_SUCCESS by every call.
! Rank 0 prints gathered checksums. Buffers are passed as their first element wherever
! a call elsewhere in this file passes a scalar there (MPI_IN_PLACE, MPI_BOTTOM): mpif.h
! declares no interfaces, and gfortran refuses a mix within one file.
program fortran_coll
#include "mcmt_fortran_head.inc"
  integer, parameter :: gap = -7
  integer :: ierr, e, rank, nprocs, nfail, nbig, root, i, j, k, total, pos, top, hsize
  integer, allocatable :: sbuf(:), rbuf(:), expect(:)
  integer, allocatable :: scounts(:), sdispls(:), rcounts(:), rdispls(:)
  integer :: x(4), y(4), z(4)
  integer, volatile :: bot(3)   ! read and written by MPI through its address (MPI_BOTTOM)
  integer(kind=MPI_ADDRESS_KIND) :: addr(1)
  integer :: blens(1)
#if defined(MCM_USE_MPI_F08)
  type(MPI_Comm) :: half
  type(MPI_Datatype) :: abstype
#else
  integer :: half, abstype
#endif

  nfail = 0
  ierr = -1
  call MPI_Init(ierr)
  call done('init')
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, e)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, e)
  if (rank == 0) write(*,'(a,i0)') 'world size: ', nprocs
  nbig = nprocs * (nprocs + 1) + 4 * nprocs + 8
  allocate(sbuf(nbig), rbuf(nbig), expect(nbig))
  allocate(scounts(nprocs), sdispls(nprocs), rcounts(nprocs), rdispls(nprocs))

  ! --- Barrier; Bcast from the last rank ------------------------------------------------
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call done('barrier')
  root = nprocs - 1
  x = -1
  if (rank == root) x = (/ (v(root, i), i = 1, 4) /)
  call MPI_Bcast(x(1), 4, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  call done('bcast')
  call check(all(x == (/ (v(root, i), i = 1, 4) /)), 'bcast from the last rank')
  call gathered('bcast from the last rank: sum', sum(x))

  ! --- Reduce: MPI_SUM to rank 0, and in place at rank 1 (a sum sees every contribution) -
  x = (/ (v(rank, i), i = 1, 4) /)
  y = -1
  call MPI_Reduce(x(1), y(1), 4, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  call done('reduce')
  if (rank == 0) call check(all(y == (/ (sum_v(i), i = 1, 4) /)), 'reduce sum at rank 0')
  total = merge(sum(y), 0, rank == 0)
  root = mod(1, nprocs)
  if (rank == root) then
    y = x
    call MPI_Reduce(MPI_IN_PLACE, y(1), 4, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
    call check(all(y == (/ (sum_v(i), i = 1, 4) /)), 'reduce sum in place at the root')
    total = total + sum(y)
  else
    call MPI_Reduce(x(1), y(1), 4, MPI_INTEGER, MPI_SUM, root, MPI_COMM_WORLD, ierr)
  end if
  call done('reduce in place')
  call gathered('reduce (at 0: sum; at 1: sum in place)', merge(total, -1, rank <= root))

  ! --- Allreduce: MPI_SUM; MPI_MAX in place; DOUBLE PRECISION MPI_PROD -----------------
  x = (/ (v(rank, i), i = 1, 4) /)
  call MPI_Allreduce(x(1), y(1), 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call done('allreduce')
  call check(all(y == (/ (sum_v(i), i = 1, 4) /)), 'allreduce sum')
  total = sum(y)
  y = (/ (maxed(rank, i), i = 1, 4) /)
  call MPI_Allreduce(MPI_IN_PLACE, y(1), 4, MPI_INTEGER, MPI_MAX, MPI_COMM_WORLD, ierr)
  call done('allreduce in place')
  call check(all(y == (/ (nprocs * i, i = 1, 4) /)), 'allreduce max in place')
  x = (/ (2 ** mod(rank + i, 3), i = 1, 4) /)
  call MPI_Allreduce(x(1), z(1), 4, MPI_INTEGER, MPI_PROD, MPI_COMM_WORLD, ierr)
  call done('allreduce prod')
  do i = 1, 4
    k = 0
    do j = 0, nprocs - 1
      k = k + mod(j + i, 3)
    end do
    call check(z(i) == 2 ** k, 'allreduce prod')
  end do
  call gathered('allreduce (sum, max in place, prod)', total + sum(y) + sum(z))

  ! --- Allgather, and in place ---------------------------------------------------------
  sbuf(1:2) = (/ v(rank, 1), v(rank, 2) /)
  rbuf = gap
  call MPI_Allgather(sbuf(1), 2, MPI_INTEGER, rbuf(1), 2, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call done('allgather')
  expect = gap
  do j = 0, nprocs - 1
    expect(2 * j + 1:2 * j + 2) = (/ v(j, 1), v(j, 2) /)
  end do
  call check(all(rbuf == expect), 'allgather')
  rbuf = gap
  rbuf(2 * rank + 1:2 * rank + 2) = (/ v(rank, 1), v(rank, 2) /)
  call MPI_Allgather(MPI_IN_PLACE, 0, MPI_INTEGER, rbuf(1), 2, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call done('allgather in place')
  call check(all(rbuf == expect), 'allgather in place')
  call gathered('allgather in place: sum', sum(rbuf(1:2 * nprocs)))

  ! --- Allgatherv: rank j gives j + 1 values, blocks in reverse rank order with gaps ------
  call reversed_blocks(rcounts, rdispls, total, 1)
  sbuf(1:rank + 1) = (/ (v(rank, i), i = 1, rank + 1) /)
  rbuf = gap
  call MPI_Allgatherv(sbuf(1), rank + 1, MPI_INTEGER, rbuf, rcounts, rdispls, MPI_INTEGER, &
                      MPI_COMM_WORLD, ierr)
  call done('allgatherv')
  call check(all(rbuf == reversed_expect(rcounts, rdispls)), 'allgatherv irregular')
  call gathered('allgatherv: sum', sum(rbuf(1:total), mask=rbuf(1:total) /= gap))

  ! --- Alltoall, and in place ----------------------------------------------------------
  sbuf(1:nprocs) = (/ (1000 * rank + j, j = 0, nprocs - 1) /)
  rbuf = gap
  call MPI_Alltoall(sbuf(1), 1, MPI_INTEGER, rbuf(1), 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call done('alltoall')
  call check(all(rbuf(1:nprocs) == (/ (1000 * j + rank, j = 0, nprocs - 1) /)), 'alltoall')
  call check(rbuf(nprocs + 1) == gap, 'alltoall: beyond the buffer')
  rbuf(1:nprocs) = (/ (1000 * rank + j, j = 0, nprocs - 1) /)
  call MPI_Alltoall(MPI_IN_PLACE, 1, MPI_INTEGER, rbuf(1), 1, MPI_INTEGER, MPI_COMM_WORLD, ierr)
  call done('alltoall in place')
  call check(all(rbuf(1:nprocs) == (/ (1000 * j + rank, j = 0, nprocs - 1) /)), &
             'alltoall in place')
  call gathered('alltoall in place: sum', sum(rbuf(1:nprocs)))

  ! --- Alltoallv: rank a sends mod(a + b, 3) + 1 values to rank b ------------------------
  pos = 0
  do j = 0, nprocs - 1   ! send blocks in rank order, one gap slot after each
    scounts(j + 1) = mod(rank + j, 3) + 1
    sdispls(j + 1) = pos
    sbuf(pos + 1:pos + scounts(j + 1)) = (/ (10000 * rank + 100 * j + k, k = 1, scounts(j + 1)) /)
    pos = pos + scounts(j + 1) + 1
  end do
  pos = 0
  do j = nprocs - 1, 0, -1   ! receive blocks in reverse rank order, two gap slots after each
    rcounts(j + 1) = mod(j + rank, 3) + 1
    rdispls(j + 1) = pos
    pos = pos + rcounts(j + 1) + 2
  end do
  total = pos
  rbuf = gap
  call MPI_Alltoallv(sbuf(1), scounts, sdispls, MPI_INTEGER, rbuf(1), rcounts, rdispls, MPI_INTEGER, &
                     MPI_COMM_WORLD, ierr)
  call done('alltoallv')
  expect = gap
  do j = 0, nprocs - 1
    do k = 1, rcounts(j + 1)
      expect(rdispls(j + 1) + k) = 10000 * j + 100 * rank + k
    end do
  end do
  call check(all(rbuf == expect), 'alltoallv irregular')
  call gathered('alltoallv: received values', count(rbuf(1:total) /= gap))

  ! --- Reduce_scatter: rank j gets j + 1 sums; Reduce_scatter_block, and in place -------
  total = nprocs * (nprocs + 1) / 2
  rcounts = (/ (j + 1, j = 0, nprocs - 1) /)
  sbuf(1:total) = (/ (rank * k + 1, k = 1, total) /)
  rbuf = gap
  call MPI_Reduce_scatter(sbuf(1), rbuf(1), rcounts, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call done('reduce_scatter')
  pos = rank * (rank + 1) / 2   ! elements before this rank's part
  call check(all(rbuf(1:rank + 1) == (/ (rs(pos + k), k = 1, rank + 1) /)), &
             'reduce_scatter irregular')
  call check(rbuf(rank + 2) == gap, 'reduce_scatter: beyond the part')
  total = sum(rbuf(1:rank + 1))
  sbuf(1:2 * nprocs) = (/ (rank * k + 1, k = 1, 2 * nprocs) /)
  rbuf = gap
  call MPI_Reduce_scatter_block(sbuf(1), rbuf(1), 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call done('reduce_scatter_block')
  call check(all(rbuf(1:2) == (/ rs(2 * rank + 1), rs(2 * rank + 2) /)) .and. rbuf(3) == gap, &
             'reduce_scatter_block')
  rbuf(1:2 * nprocs) = sbuf(1:2 * nprocs)
  call MPI_Reduce_scatter_block(MPI_IN_PLACE, rbuf(1), 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  call done('reduce_scatter_block in place')
  call check(all(rbuf(1:2) == (/ rs(2 * rank + 1), rs(2 * rank + 2) /)), &
             'reduce_scatter_block in place')
  call gathered('reduce_scatter (irregular + block in place): sum', total + sum(rbuf(1:2)))

  ! --- Gather to rank 0; in place at the last rank -------------------------------------
  sbuf(1:2) = (/ v(rank, 1), v(rank, 2) /)
  rbuf = gap
  call MPI_Gather(sbuf(1), 2, MPI_INTEGER, rbuf, 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call done('gather')
  expect = gap
  do j = 0, nprocs - 1
    expect(2 * j + 1:2 * j + 2) = (/ v(j, 1), v(j, 2) /)
  end do
  if (rank == 0) call check(all(rbuf == expect), 'gather to rank 0')
  root = nprocs - 1
  rbuf = gap
  if (rank == root) then
    rbuf(2 * root + 1:2 * root + 2) = sbuf(1:2)
    call MPI_Gather(MPI_IN_PLACE, 2, MPI_INTEGER, rbuf, 2, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    call check(all(rbuf == expect), 'gather in place at the root')
  else
    call MPI_Gather(sbuf(1), 2, MPI_INTEGER, rbuf, 2, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    call check(all(rbuf == gap), 'gather: a non-root receive buffer stays untouched')
  end if
  call done('gather in place')
  call gathered('gather in place: sum at the root', merge(sum(rbuf(1:2 * nprocs)), -1, rank == root))

  ! --- Gatherv to rank 2: rank j gives j + 1 values, reverse rank order with gaps --------
  root = mod(2, nprocs)
  call reversed_blocks(rcounts, rdispls, total, 1)
  sbuf(1:rank + 1) = (/ (v(rank, i), i = 1, rank + 1) /)
  rbuf = gap
  call MPI_Gatherv(sbuf(1), rank + 1, MPI_INTEGER, rbuf, rcounts, rdispls, MPI_INTEGER, root, &
                   MPI_COMM_WORLD, ierr)
  call done('gatherv')
  if (rank == root) call check(all(rbuf == reversed_expect(rcounts, rdispls)), 'gatherv irregular')
  call gathered('gatherv: sum at the root', &
                merge(sum(rbuf(1:total), mask=rbuf(1:total) /= gap), -1, rank == root))

  ! --- Scatter from rank 0; in place at the last rank ----------------------------------
  do j = 0, nprocs - 1
    sbuf(2 * j + 1:2 * j + 2) = (/ v(j, 1) + 7, v(j, 2) + 7 /)
  end do
  rbuf = gap
  call MPI_Scatter(sbuf(1), 2, MPI_INTEGER, rbuf(1), 2, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call done('scatter')
  call check(all(rbuf(1:3) == (/ v(rank, 1) + 7, v(rank, 2) + 7, gap /)), 'scatter from rank 0')
  root = nprocs - 1
  rbuf = gap
  if (rank == root) then
    call MPI_Scatter(sbuf(1), 2, MPI_INTEGER, MPI_IN_PLACE, 2, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    call check(sbuf(2 * root + 1) == v(root, 1) + 7, 'scatter in place: the root keeps its block')
    rbuf(1:2) = sbuf(2 * root + 1:2 * root + 2)
  else
    call MPI_Scatter(sbuf(1), 2, MPI_INTEGER, rbuf(1), 2, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
    call check(all(rbuf(1:3) == (/ v(rank, 1) + 7, v(rank, 2) + 7, gap /)), 'scatter')
  end if
  call done('scatter in place')
  call gathered('scatter in place: received', rbuf(1) + rbuf(2))

  ! --- Scatterv from the last rank: rank j gets mod(j, 3) + 1 values, reverse order, gaps
  root = nprocs - 1
  call reversed_blocks(scounts, sdispls, total, 3)
  sbuf = gap
  do j = 0, nprocs - 1
    sbuf(sdispls(j + 1) + 1:sdispls(j + 1) + scounts(j + 1)) = (/ (v(j, k), k = 1, scounts(j + 1)) /)
  end do
  rbuf = gap
  call MPI_Scatterv(sbuf(1), scounts, sdispls, MPI_INTEGER, rbuf(1), scounts(rank + 1), MPI_INTEGER, &
                    root, MPI_COMM_WORLD, ierr)
  call done('scatterv')
  k = scounts(rank + 1)
  call check(all(rbuf(1:k) == (/ (v(rank, i), i = 1, k) /)) .and. rbuf(k + 1) == gap, &
             'scatterv irregular')
  call gathered('scatterv: received', sum(rbuf(1:k)))

  ! --- A communicator from MPI_Comm_split: parities, in reverse rank order --------------
  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), nprocs - rank, half, e)
  call MPI_Comm_size(half, hsize, e)
  total = 0
  top = -1
  do j = mod(rank, 2), nprocs - 1, 2   ! the half's world ranks; top: the highest
    total = total + j
    top = j
  end do
  call MPI_Allreduce(rank, k, 1, MPI_INTEGER, MPI_SUM, half, ierr)
  call done('allreduce on a split communicator')
  call check(k == total, 'allreduce on a split communicator')
  i = rank   ! the half's rank 0 is its highest world rank
  call MPI_Bcast(i, 1, MPI_INTEGER, 0, half, ierr)
  call done('bcast on a split communicator')
  call check(i == top, 'bcast from the highest world rank of the half')
  rbuf = gap
  call MPI_Allgather(rank, 1, MPI_INTEGER, rbuf(1), 1, MPI_INTEGER, half, ierr)
  call done('allgather on a split communicator')
  call check(all(rbuf(1:hsize) == (/ (top - 2 * j, j = 0, hsize - 1) /)) .and. rbuf(hsize + 1) == gap, &
             'allgather on a split communicator: world ranks in reverse order')
  call MPI_Comm_free(half, e)
  call gathered('split: sum of the half, its highest rank', 100 * k + i)

  ! --- MPI_BOTTOM with an absolute-address datatype: Bcast, and Gather's send buffer ----
  bot = -1
  if (rank == 0) bot = (/ 11, 22, 33 /)
  blens(1) = 3
  call MPI_Get_address(bot, addr(1), e)
  call MPI_Type_create_hindexed(1, blens, addr, MPI_INTEGER, abstype, e)
  call MPI_Type_commit(abstype, e)
  call MPI_Bcast(MPI_BOTTOM, 1, abstype, 0, MPI_COMM_WORLD, ierr)
  call done('bcast MPI_BOTTOM')
  call check(bot(1) == 11 .and. bot(2) == 22 .and. bot(3) == 33, 'bcast MPI_BOTTOM')
  bot = (/ rank, 2 * rank, 3 * rank /)
  rbuf = gap
  call MPI_Gather(MPI_BOTTOM, 1, abstype, rbuf, 3, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call done('gather MPI_BOTTOM')
  if (rank == 0) call check(all(rbuf(1:3 * nprocs) == (/ ((j * k, k = 1, 3), j = 0, nprocs - 1) /)), &
                            'gather from MPI_BOTTOM')
  call MPI_Type_free(abstype, e)
  call gathered('MPI_BOTTOM: bcast then sent', bot(1) + bot(2) + bot(3))

  call finish(FLAVOUR // '_coll')

contains

#include "mcmt_fortran.inc"

  ! The value rank r contributes in slot i.
  integer function v(r, i)
    integer, intent(in) :: r, i
    v = 100 * r + i
  end function v

  ! The sum over all ranks of v(r, i).
  integer function sum_v(i)
    integer, intent(in) :: i
    sum_v = 100 * nprocs * (nprocs - 1) / 2 + nprocs * i
  end function sum_v

  ! A value whose maximum over the ranks is nprocs * i.
  integer function maxed(r, i)
    integer, intent(in) :: r, i
    maxed = merge((r + 1) * i, (nprocs - r) * i, mod(i, 2) == 1)
  end function maxed

  ! The sum over all ranks of r * k + 1 (the reduce_scatter inputs).
  integer function rs(k)
    integer, intent(in) :: k
    rs = k * nprocs * (nprocs - 1) / 2 + nprocs
  end function rs

  ! Blocks of j + 1 values (layout 1) or mod(j, 3) + 1 values (layout 3) for each rank j,
  ! in reverse rank order with one gap slot after each; extent: where the last one ends.
  subroutine reversed_blocks(counts, displs, extent, layout)
    integer, intent(out) :: counts(:), displs(:), extent
    integer, intent(in) :: layout
    integer :: j
    extent = 0
    do j = nprocs - 1, 0, -1
      counts(j + 1) = merge(j + 1, mod(j, 3) + 1, layout == 1)
      displs(j + 1) = extent
      extent = extent + counts(j + 1) + 1
    end do
  end subroutine reversed_blocks

  ! What a receive buffer of nbig gap values holds after rank j's values v(j, 1..) landed
  ! in its block.
  function reversed_expect(counts, displs) result(e)
    integer, intent(in) :: counts(:), displs(:)
    integer :: e(nbig), j, k
    e = gap
    do j = 0, nprocs - 1
      do k = 1, counts(j + 1)
        e(displs(j + 1) + k) = v(j, k)
      end do
    end do
  end function reversed_expect

  ! Checks that the last call wrote MPI_SUCCESS to ierr, and spoils ierr for the next.
  subroutine done(what)
    character(len=*), intent(in) :: what
    call check(ierr == MPI_SUCCESS, what // ': ierr')
    ierr = -1
  end subroutine done

end program fortran_coll
