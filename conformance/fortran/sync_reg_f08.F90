! MPI_F_sync_reg after a nonblocking reduction, through the mpi_f08 module
! (MPI-4.1 20.1.8): TYPE(*), DIMENSION(..) buf, no ierror. The C++ check
! (sync_reg.cpp) gets the input and the result.
module ordo_sync_reg_f08
  use, intrinsic :: iso_c_binding
  use mpi_f08
  implicit none
  private
  public :: ordo_sync_reg_f08_call

contains

  integer(c_int) function ordo_sync_reg_f08_call(comm_f, n, sendbuf_out, recvbuf_out) &
      bind(C, name="ordo_sync_reg_f08_call")
    integer(c_int), value :: comm_f, n
    integer(c_int), intent(out) :: sendbuf_out(n), recvbuf_out(n)
    type(MPI_Comm) :: comm
    type(MPI_Request) :: req
    integer, asynchronous, allocatable :: a(:), b(:)
    integer :: i, myrank, ierr
    comm%MPI_VAL = comm_f
    call MPI_Comm_rank(comm, myrank, ierr)
    allocate(a(n), b(n))
    do i = 1, n
      a(i) = 1000 * myrank + 7 * i
    end do
    b = -1
    call MPI_Iallreduce(a, b, n, MPI_INTEGER, MPI_SUM, comm, req, ierr)
    if (ierr == MPI_SUCCESS) call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    call MPI_F_sync_reg(b)
    sendbuf_out = a
    recvbuf_out = b
    ordo_sync_reg_f08_call = ierr
  end function
end module
