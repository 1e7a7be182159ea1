! f77_attr_topo (include 'mpif.h') and f90_attr_topo (use mpi), from this one source:
! MPI_Comm_get_attr(MPI_COMM_WORLD, ...) for
! MPI_TAG_UB (>= 32767), MPI_APPNUM, MPI_UNIVERSE_SIZE, MPI_WTIME_IS_GLOBAL
! with INTEGER(KIND=MPI_ADDRESS_KIND) values; a user keyval with
! MPI_COMM_DUP_FN set on world and seen on a dup; Cart_create on world with
! Cart_coords/Cart_shift; Intercomm_create with world as the peer plus
! Intercomm_merge; Comm_set_errhandler(world, MPI_ERRORS_RETURN) and the
! error class of a send to rank == size (MPI_ERR_RANK).
program fortran_attr_topo
#include "mcmt_fortran_head.inc"
  integer :: ierr, rank, nprocs, nfail, x, y, key, dup, res, cls, eh
  integer :: cart, dims(2), coords(2), src, dst, local, inter, merged, nlow, high
  logical :: periods(2), flag
  integer(kind=MPI_ADDRESS_KIND) :: val, uval
  integer :: status(MPI_STATUS_SIZE)

  nfail = 0
  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)

  ! Predefined attributes
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, val, flag, ierr)
  call check(flag .and. val >= 32767, 'TAG_UB')
  if (rank == 0) write(*,'(a,l1,a,l1)') 'TAG_UB flag: ', flag, ', >= 32767: ', val >= 32767
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, val, flag, ierr)
  if (.not. flag) val = -1
  if (rank == 0) write(*,'(a,l1,a,i0)') 'APPNUM flag: ', flag, ', value: ', val
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_UNIVERSE_SIZE, val, flag, ierr)
  if (.not. flag) val = -1
  if (rank == 0) write(*,'(a,l1,a,i0)') 'UNIVERSE_SIZE flag: ', flag, ', value: ', val
  call MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, val, flag, ierr)
  if (rank == 0) write(*,'(a,l1)') 'WTIME_IS_GLOBAL flag: ', flag

  ! User keyval copied by MPI_COMM_DUP_FN
  call MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, key, 0_MPI_ADDRESS_KIND, ierr)
  uval = 1000 + rank
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key, uval, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  val = -1
  call MPI_Comm_get_attr(dup, key, val, flag, ierr)
  call check(flag .and. val == 1000 + rank, 'user attr on dup')
  call gathered('user attr on dup', int(val))
  call MPI_Comm_get_attr(MPI_COMM_WORLD, key, val, flag, ierr)
  call check(flag .and. val == 1000 + rank, 'user attr on world')
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key, ierr)
  call MPI_Comm_get_attr(MPI_COMM_WORLD, key, val, flag, ierr)
  call check(.not. flag, 'user attr after delete')
  call MPI_Comm_free_keyval(key, ierr)

  ! Cartesian topology on world
  dims = 0
  call MPI_Dims_create(nprocs, 2, dims, ierr)
  periods = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
  call MPI_Cart_coords(cart, rank, 2, coords, ierr)
  call check(coords(1) == rank / dims(2) .and. coords(2) == mod(rank, dims(2)), 'cart coords')
  if (rank == 0) write(*,'(a,i0,a,i0)') 'dims: ', dims(1), ' x ', dims(2)
  call gathered('cart coord1', coords(1))
  call MPI_Cart_shift(cart, 0, 1, src, dst, ierr)
  call check(dst == mod(rank + dims(2), nprocs), 'cart shift')
  x = rank
  call MPI_Sendrecv(x, 1, MPI_INTEGER, dst, 4, y, 1, MPI_INTEGER, src, 4, cart, status, ierr)
  call check(y == src, 'cart sendrecv')
  call gathered('cart shift source', y)
  call MPI_Comm_free(cart, ierr)

  ! Intercommunicator with MPI_COMM_WORLD as peer
  nlow = nprocs / 2
  high = 0
  if (rank >= nlow) high = 1
  call MPI_Comm_split(MPI_COMM_WORLD, high, rank, local, ierr)
  if (high == 1) then
    call MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 0, 42, inter, ierr)
  else
    call MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, nlow, 42, inter, ierr)
  end if
  call MPI_Comm_remote_size(inter, y, ierr)
  call gathered('remote size', y)
  ! Low local rank 0 sends to high local rank 0
  y = -1
  if (high == 0 .and. rank == 0) then
    x = 4242
    call MPI_Send(x, 1, MPI_INTEGER, 0, 7, inter, ierr)
  else if (high == 1 .and. rank == nlow) then
    call MPI_Recv(y, 1, MPI_INTEGER, MPI_ANY_SOURCE, 7, inter, status, ierr)
    call check(y == 4242 .and. status(MPI_SOURCE) == 0, 'intercomm recv')
  end if
  call gathered('intercomm message', y)
  call MPI_Intercomm_merge(inter, high == 1, merged, ierr)
  call MPI_Comm_rank(merged, y, ierr)
  call check(y == rank, 'merged rank')
  call MPI_Comm_compare(merged, MPI_COMM_WORLD, res, ierr)
  call check(res == MPI_CONGRUENT, 'merged vs world')
  call gathered('merged rank', y)
  call MPI_Comm_free(merged, ierr)
  call MPI_Comm_free(inter, ierr)
  call MPI_Comm_free(local, ierr)

  ! Error handler on world
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Comm_get_errhandler(MPI_COMM_WORLD, eh, ierr)
  call check(eh == MPI_ERRORS_RETURN, 'get_errhandler')
  x = 1
  call MPI_Send(x, 1, MPI_INTEGER, nprocs, 0, MPI_COMM_WORLD, ierr)
  cls = -1
  call MPI_Error_class(ierr, cls, y)
  call check(ierr /= MPI_SUCCESS .and. cls == MPI_ERR_RANK, 'error class')
  if (rank == 0) write(*,'(a,l1)') 'send to rank size gives MPI_ERR_RANK: ', cls == MPI_ERR_RANK
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL, ierr)

  call finish(FLAVOUR // '_attr_topo')

contains

#include "mcmt_fortran.inc"

end program fortran_attr_topo
