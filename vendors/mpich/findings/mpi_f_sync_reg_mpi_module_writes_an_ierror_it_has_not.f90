! MPICH 4.0.2, the mpi module (and mpif.h): MPI_F_SYNC_REG(buf) has one
! argument and no ierror (MPI-4.1 19.1.8: "This routine has no ierror return
! argument"), but the library's routine behind it (mpi_f_sync_reg_ in
! libmpichfort.so.12) stores 0 through a second argument, as if it were
! IERROR: its whole body is one store through the second argument register.
! A conforming call passes one argument, so the store goes wherever that
! register points: here a segmentation fault; in a larger program it can
! silently overwrite memory. The mpi_f08 form (mpi_f_sync_reg_f08ts_) is
! right. Found by ordo's Fortran_sync_reg check.
!
!   mpifort.mpich mpi_f_sync_reg_mpi_module_writes_an_ierror_it_has_not.f90 -o repro
!   mpiexec.mpich -n 2 ./repro      (SIGSEGV with the fault, exit 0 without)
program repro
  use mpi
  implicit none
  integer, parameter :: n = 4
  integer, asynchronous :: a(n), b(n)
  integer :: i, ierr, rank, size, req
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  do i = 1, n
    a(i) = rank + i
  end do
  b = -1
  call MPI_Iallreduce(a, b, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  ! As MPI-4.1 19.1.17 advises after the completion of a nonblocking call.
  call MPI_F_sync_reg(b)
  do i = 1, n
    if (b(i) /= size * i + size * (size - 1) / 2) then
      print *, 'rank', rank, ': b(', i, ') =', b(i)
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end do
  if (rank == 0) print *, 'MPI_F_SYNC_REG returned; results right'
  call MPI_Finalize(ierr)
end program
