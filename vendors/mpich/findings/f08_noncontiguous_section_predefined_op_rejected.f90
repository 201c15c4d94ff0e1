! MPICH 4.0.2, mpi_f08 (MPI_SUBARRAYS_SUPPORTED = .true.): a reduction with a
! predefined op on a non-contiguous array section, a(1:2n:2), fails with
! MPI_ERR_OP ("MPI_SUM operation not defined for this datatype"). The
! binding passes the section to the C routine as one element of an hvector
! of MPI_INTEGER, and a predefined op is refused on a derived datatype; the
! program passed n elements of MPI_INTEGER, which MPI_SUM takes. The same
! call on contiguous arrays works. Found by ordo's Fortran_sections check.
!
!   mpifort.mpich f08_noncontiguous_section_predefined_op_rejected.f90 -o repro
!   mpiexec.mpich -n 2 ./repro      (exit 1 with the fault, 0 without)
program repro
  use mpi_f08
  implicit none
  integer, parameter :: n = 5
  integer, asynchronous :: a(2 * n), b(2 * n)
  integer :: i, ierr, rank, size, bad
  type(MPI_Request) :: req
  call MPI_Init()
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, size)
  bad = 0
  a = -7
  do i = 1, n
    a(2 * i - 1) = rank + i
  end do
  ! Nonblocking, on every other element.
  b = -1
  call MPI_Iallreduce(a(1:2 * n:2), b(1:2 * n:2), n, MPI_INTEGER, MPI_SUM, &
                      MPI_COMM_WORLD, req, ierr)
  if (ierr == MPI_SUCCESS) call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  if (ierr /= MPI_SUCCESS) then
    print '(a, i0, a, i0)', 'rank ', rank, ': MPI_Iallreduce on a(1:2n:2) returned ', ierr
    bad = 1
  else if (b(1) /= size * (size - 1) / 2 + size) then
    print '(a, i0, a, i0)', 'rank ', rank, ': MPI_Iallreduce on a(1:2n:2): b(1) = ', b(1)
    bad = 1
  end if
  ! Blocking, the same section.
  b = -1
  call MPI_Allreduce(a(1:2 * n:2), b(1:2 * n:2), n, MPI_INTEGER, MPI_SUM, &
                     MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) then
    print '(a, i0, a, i0)', 'rank ', rank, ': MPI_Allreduce on a(1:2n:2) returned ', ierr
    bad = 1
  end if
  ! Contiguous: fine.
  b = -1
  call MPI_Allreduce(a, b, n, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (ierr /= MPI_SUCCESS) then
    print '(a, i0, a, i0)', 'rank ', rank, ': MPI_Allreduce on contiguous a returned ', ierr
    bad = 1
  end if
  call MPI_Finalize()
  if (bad /= 0) error stop 1
end program
