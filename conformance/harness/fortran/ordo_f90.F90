! ordo's Fortran layer, mpi module binding (`use mpi`, MPI-4.1 Section 19.1):
! the C++ harness (conformance/harness/executor.cpp) makes a case's call
! through here when the case's binding is f90. Handles are INTEGERs (the
! C side converts with MPI_Comm_c2f, MPI_Type_c2f, MPI_Op_c2f, and a
! request back with MPI_Request_f2c); the binding has no large-count forms.
! Buffers are the harness's own (guarded, filled by the reference), passed by
! address.
#ifdef ORDO_FORTRAN_F90_PERSISTENT
#define PERSISTENT 1
#endif
module ordo_f90_layer
  use, intrinsic :: iso_c_binding
  use mpi
  implicit none
  private
  public :: ordo_f90_call, ordo_f90_op_create

  ! The C++ side of the witness user functions (conformance/harness/mpi_types.cpp).
  interface
    subroutine ordo_fortran_user_fn(kernel, invec, inoutvec, len, datatype) bind(C, name="ordo_fortran_user_fn")
      import :: c_int, c_int8_t
      integer(c_int), value :: kernel
      integer(c_int8_t) :: invec(*), inoutvec(*)
      integer(c_int) :: len, datatype
    end subroutine
  end interface

contains

  ! One call (reduce_calls.inc). counts (ncounts of them; unused but for
  ! reduce_scatter) is the caller's array, passed on as it is: a nonblocking or
  ! persistent request may read its recvcounts until it completes (MPI-4.1 and
  ! MPI-5.0 6.12), so no copy that this function's return would free is made.
  integer(c_int) function ordo_f90_call(routine, mode, send, recv, in_place, count, counts, ncounts, &
                                        dt, op, root, comm, request_f) bind(C, name="ordo_f90_call")
    integer(c_int), value :: routine, mode, in_place, count, ncounts, root
    integer(c_int8_t) :: send(*), recv(*)
    integer(c_int), intent(in) :: counts(*)
    integer(c_int), value :: dt, op, comm
    integer(c_int), intent(out) :: request_f
    integer :: req, ierr, n
    req = MPI_REQUEST_NULL
    n = count
#define N n
#define CNT counts
#include "reduce_calls.inc"
    request_f = req
    ordo_f90_call = ierr
  end function

  ! The witness ops' user functions in Fortran (the mpi module's
  ! USER_FUNCTION: the vectors, len and the datatype, all by reference).
  subroutine f90_tracer(invec, inoutvec, len, datatype)
    integer(c_int8_t) :: invec(*), inoutvec(*)
    integer :: len, datatype
    call ordo_fortran_user_fn(0_c_int, invec, inoutvec, len, datatype)
  end subroutine
  subroutine f90_matrix(invec, inoutvec, len, datatype)
    integer(c_int8_t) :: invec(*), inoutvec(*)
    integer :: len, datatype
    call ordo_fortran_user_fn(1_c_int, invec, inoutvec, len, datatype)
  end subroutine
  subroutine f90_sum(invec, inoutvec, len, datatype)
    integer(c_int8_t) :: invec(*), inoutvec(*)
    integer :: len, datatype
    call ordo_fortran_user_fn(2_c_int, invec, inoutvec, len, datatype)
  end subroutine
  subroutine f90_recorder(invec, inoutvec, len, datatype)
    integer(c_int8_t) :: invec(*), inoutvec(*)
    integer :: len, datatype
    call ordo_fortran_user_fn(3_c_int, invec, inoutvec, len, datatype)
  end subroutine

  ! MPI_Op_create from Fortran for kernel (0 tracer, 1 matrix, 2 sum,
  ! 3 recorder); returns ierror and the op's handle.
  integer(c_int) function ordo_f90_op_create(kernel, commute, op) bind(C, name="ordo_f90_op_create")
    integer(c_int), value :: kernel, commute
    integer(c_int), intent(out) :: op
    integer :: ierr
    ierr = MPI_ERR_OTHER
    op = MPI_OP_NULL
    select case (kernel)
    case (0); call MPI_Op_create(f90_tracer, commute /= 0, op, ierr)
    case (1); call MPI_Op_create(f90_matrix, commute /= 0, op, ierr)
    case (2); call MPI_Op_create(f90_sum, commute /= 0, op, ierr)
    case (3); call MPI_Op_create(f90_recorder, commute /= 0, op, ierr)
    end select
    ordo_f90_op_create = ierr
  end function
end module
