! f77_io_rma (include 'mpif.h') and f90_io_rma (use mpi), from this one source:
! MPI-IO and RMA on MPI_COMM_WORLD. Rank 0 picks a
! per-job file name in the directory given as argument 1 (default /tmp) and
! broadcasts it; File_open(world), each rank writes its block with
! File_write_at_all at rank*B, all ranks read the whole file back with
! File_read_at_all and check it, rank 0 prints a checksum and deletes the
! file. Then Win_create over world, a fence epoch with Put to the right
! neighbour and Accumulate(SUM) into rank 0, Win_get_group vs world group.
! The window memory lives in a COMMON block (so the optimiser cannot cache it across fences).
program fortran_io_rma
#include "mcmt_fortran_head.inc"
  integer :: wbuf(2)
  common /f77win/ wbuf
  integer, parameter :: B = 32
  integer :: ierr, rank, nprocs, nfail, i, fh, isz, res, wg, gg, win, x, sumr
  integer :: buf(B)
  integer, allocatable :: all(:)
  integer(kind=MPI_OFFSET_KIND) :: off, fsize
  integer(kind=MPI_ADDRESS_KIND) :: wsize, tdisp
  integer(kind=8) :: clk, chk
  character(len=512) :: dir, path
  integer :: status(MPI_STATUS_SIZE)

  nfail = 0
  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Type_size(MPI_INTEGER, isz, ierr)

  path = ' '
  if (rank == 0) then
    dir = '/tmp'
    if (command_argument_count() >= 1) call get_command_argument(1, dir)
    call system_clock(clk)
    write(path, '(a,a,i0,a)') trim(dir), '/mcm_' // FLAVOUR // '_io_', clk, '.dat'
  end if
  call MPI_Bcast(path, len(path), MPI_CHARACTER, 0, MPI_COMM_WORLD, ierr)

  call MPI_File_open(MPI_COMM_WORLD, trim(path), MPI_MODE_CREATE + MPI_MODE_RDWR, &
                     MPI_INFO_NULL, fh, ierr)
  call check(ierr == MPI_SUCCESS, 'File_open')
  if (ierr /= MPI_SUCCESS) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  do i = 1, B
    buf(i) = rank * 1000 + i
  end do
  off = int(rank, MPI_OFFSET_KIND) * B * isz
  call MPI_File_write_at_all(fh, off, buf, B, MPI_INTEGER, status, ierr)
  call check(ierr == MPI_SUCCESS, 'write_at_all')
  call MPI_File_sync(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_File_sync(fh, ierr)
  call MPI_File_get_size(fh, fsize, ierr)
  call check(fsize == int(nprocs, MPI_OFFSET_KIND) * B * isz, 'file size')
  if (rank == 0) write(*,'(a,i0)') 'file size: ', fsize
  allocate(all(B * nprocs))
  all = 0
  off = 0
  call MPI_File_read_at_all(fh, off, all, B * nprocs, MPI_INTEGER, status, ierr)
  call check(ierr == MPI_SUCCESS, 'read_at_all')
  chk = 0
  do i = 1, B * nprocs
    call check(all(i) == ((i - 1) / B) * 1000 + mod(i - 1, B) + 1, 'read back')
    if (all(i) /= ((i - 1) / B) * 1000 + mod(i - 1, B) + 1) exit
    chk = chk + int(all(i), 8) * i
  end do
  if (rank == 0) write(*,'(a,i0)') 'checksum: ', chk
  call MPI_File_close(fh, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    call MPI_File_delete(trim(path), MPI_INFO_NULL, ierr)
    call check(ierr == MPI_SUCCESS, 'File_delete')
  end if
  deallocate(all)

  ! RMA window on world
  wbuf(1) = -1
  wbuf(2) = 0
  wsize = 2 * isz
  call MPI_Win_create(wbuf, wsize, isz, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_get_group(win, gg, ierr)
  call MPI_Comm_group(MPI_COMM_WORLD, wg, ierr)
  call MPI_Group_compare(gg, wg, res, ierr)
  call check(res == MPI_IDENT, 'win group')
  if (rank == 0) write(*,'(a,l1)') 'win group is world group: ', res == MPI_IDENT
  call MPI_Group_free(gg, ierr)
  call MPI_Group_free(wg, ierr)
  call MPI_Win_fence(0, win, ierr)
  x = 100 + rank
  tdisp = 0
  call MPI_Put(x, 1, MPI_INTEGER, mod(rank + 1, nprocs), tdisp, 1, MPI_INTEGER, win, ierr)
  tdisp = 1
  call MPI_Accumulate(rank, 1, MPI_INTEGER, 0, tdisp, 1, MPI_INTEGER, MPI_SUM, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call check(wbuf(1) == 100 + mod(rank + nprocs - 1, nprocs), 'put')
  if (rank == 0) call check(wbuf(2) == nprocs * (nprocs - 1) / 2, 'accumulate')
  call gathered('fence put received', wbuf(1))
  sumr = wbuf(2)
  if (rank == 0) write(*,'(a,i0)') 'fence accumulate at 0: ', sumr
  call MPI_Win_free(win, ierr)

  call finish(FLAVOUR // '_io_rma')

contains

#include "mcmt_fortran.inc"

end program fortran_io_rma
