! MPI_F_SYNC_REG after a nonblocking reduction, through the mpi module (MPI-4.1
! 20.1.8; 20.1.17 advises it after MPI_WAIT where a buffer may live in a
! register). The routine has one argument and no ierror; the C++ check
! (sync_reg.cpp) gets the input and the result.
module ordo_sync_reg_f90
  use, intrinsic :: iso_c_binding
  use mpi
  implicit none
  private
  public :: ordo_sync_reg_f90_call

contains

  integer(c_int) function ordo_sync_reg_f90_call(comm_f, n, sendbuf_out, recvbuf_out) &
      bind(C, name="ordo_sync_reg_f90_call")
    integer(c_int), value :: comm_f, n
    integer(c_int), intent(out) :: sendbuf_out(n), recvbuf_out(n)
    integer, asynchronous, allocatable :: a(:), b(:)
    integer :: i, myrank, req, ierr
    call MPI_Comm_rank(comm_f, myrank, ierr)
    allocate(a(n), b(n))
    do i = 1, n
      a(i) = 1000 * myrank + 7 * i
    end do
    b = -1
    call MPI_Iallreduce(a, b, n, MPI_INTEGER, MPI_SUM, comm_f, req, ierr)
    if (ierr == MPI_SUCCESS) call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call MPI_F_sync_reg(b)
    sendbuf_out = a
    recvbuf_out = b
    ordo_sync_reg_f90_call = ierr
  end function
end module
