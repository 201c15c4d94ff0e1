! mpi_f08 nonblocking reductions on non-contiguous array sections (MPI-4.1
! Chapter 19: with MPI_SUBARRAYS_SUPPORTED = .true., a choice buffer may be any
! array section, also in a nonblocking call, and the library must not copy
! it in and out around the call). Every other element of a and b, a(1:2n:2)
! and b(1:2n:2), is the buffer; the elements in between must stay as they
! were. The C++ check (sections.cpp) gets the input and both whole arrays.
module ordo_sections_f08
  use, intrinsic :: iso_c_binding
  use mpi_f08
  implicit none
  private
  public :: ordo_sections_f08_call

contains

  ! routine: 0 MPI_Ireduce (to root), 1 MPI_Iallreduce, 4 MPI_Iscan; n
  ! elements; sendbuf_out, recvbuf_out: the whole arrays a and b after MPI_Wait.
  integer(c_int) function ordo_sections_f08_call(comm_f, routine, root, n, sendbuf_out, recvbuf_out) &
      bind(C, name="ordo_sections_f08_call")
    integer(c_int), value :: comm_f, routine, root, n
    integer(c_int), intent(out) :: sendbuf_out(2 * n), recvbuf_out(2 * n)
    type(MPI_Comm) :: comm
    type(MPI_Request) :: req
    integer, asynchronous, allocatable :: a(:), b(:)
    integer :: i, myrank, ierr
    comm%MPI_VAL = comm_f
    call MPI_Comm_rank(comm, myrank, ierr)
    allocate(a(2 * n), b(2 * n))
    a = -7
    b = -1
    do i = 1, n
      a(2 * i - 1) = 1000 * myrank + 3 * i
    end do
    ierr = MPI_ERR_OTHER
    select case (routine)
    case (0); call MPI_Ireduce(a(1:2 * n:2), b(1:2 * n:2), n, MPI_INTEGER, MPI_SUM, root, comm, req, ierr)
    case (1); call MPI_Iallreduce(a(1:2 * n:2), b(1:2 * n:2), n, MPI_INTEGER, MPI_SUM, comm, req, ierr)
    case (4); call MPI_Iscan(a(1:2 * n:2), b(1:2 * n:2), n, MPI_INTEGER, MPI_SUM, comm, req, ierr)
    end select
    if (ierr == MPI_SUCCESS) call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    sendbuf_out = a
    recvbuf_out = b
    ordo_sections_f08_call = ierr
  end function
end module
