! ordo's Fortran layer, mpi_f08 binding (`use mpi_f08`, MPI-4.1 Section 19.1):
! the C++ harness (conformance/harness/executor.cpp) makes a case's call
! through here when the case's binding is f08. Handles come in as Fortran
! handles (MPI_Comm_c2f, MPI_Type_c2f, MPI_Op_c2f on the C side) and go into
! the binding's derived types; a request goes back as its Fortran handle
! (MPI_Request_f2c on the C side). Buffers are the harness's own (guarded,
! filled by the reference), passed by address.
#ifdef ORDO_FORTRAN_F08_PERSISTENT
#define PERSISTENT 1
#endif
module ordo_f08_layer
  use, intrinsic :: iso_c_binding
  use mpi_f08
  implicit none
  private
  public :: ordo_f08_call, ordo_f08_op_create

  ! The C++ side of the witness user functions (conformance/harness/mpi_types.cpp):
  ! what the library handed the Fortran function, as it handed it.
  interface
    subroutine ordo_fortran_user_fn(kernel, invec, inoutvec, len, datatype) bind(C, name="ordo_fortran_user_fn")
      import :: c_int, c_ptr
      integer(c_int), value :: kernel
      type(c_ptr), value :: invec, inoutvec
      integer(c_int) :: len, datatype
    end subroutine
  end interface

contains

  ! One call (reduce_calls.inc); large /= 0: the INTEGER(MPI_COUNT_KIND) forms.
  ! counts and counts8 (ncounts of each; unused but for reduce_scatter) are the
  ! caller's arrays, passed on as they are: a nonblocking or persistent
  ! request may read its recvcounts until it completes (MPI-4.1 and MPI-5.0
  ! 6.12), so no copy that this function's return would free is made.
  integer(c_int) function ordo_f08_call(routine, mode, large, send, recv, in_place, count, counts, &
                                        counts8, ncounts, dt_f, op_f, root, comm_f, request_f) &
                                        bind(C, name="ordo_f08_call")
    integer(c_int), value :: routine, mode, large, in_place, count, ncounts, root
    integer(c_int8_t), asynchronous :: send(*), recv(*)
    integer(c_int), intent(in), asynchronous :: counts(*)
    integer(c_int64_t), intent(in), asynchronous :: counts8(*)
    integer(c_int), value :: dt_f, op_f, comm_f
    integer(c_int), intent(out) :: request_f
    type(MPI_Datatype) :: dt
    type(MPI_Op) :: op
    type(MPI_Comm) :: comm
    type(MPI_Request) :: req
    integer :: ierr, n
#ifdef ORDO_FORTRAN_F08_LARGE_COUNT
    integer(MPI_COUNT_KIND) :: n8
#endif
    dt%MPI_VAL = dt_f
    op%MPI_VAL = op_f
    comm%MPI_VAL = comm_f
    req = MPI_REQUEST_NULL
    n = count
    if (large == 0) then
#define N n
#define CNT counts
#include "reduce_calls.inc"
    else
#ifdef ORDO_FORTRAN_F08_LARGE_COUNT
      n8 = count
#define N n8
#define CNT counts8
#include "reduce_calls.inc"
#endif
    end if
    request_f = req%MPI_VAL
    ordo_f08_call = ierr
  end function

  ! The witness ops' user functions in Fortran (MPI_User_function of mpi_f08:
  ! invec and inoutvec by C address, len and the datatype by reference).
  subroutine f08_tracer(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    call ordo_fortran_user_fn(0_c_int, invec, inoutvec, len, datatype%MPI_VAL)
  end subroutine
  subroutine f08_matrix(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    call ordo_fortran_user_fn(1_c_int, invec, inoutvec, len, datatype%MPI_VAL)
  end subroutine
  subroutine f08_sum(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    call ordo_fortran_user_fn(2_c_int, invec, inoutvec, len, datatype%MPI_VAL)
  end subroutine
  subroutine f08_recorder(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    call ordo_fortran_user_fn(3_c_int, invec, inoutvec, len, datatype%MPI_VAL)
  end subroutine

  ! MPI_Op_create from Fortran for kernel (0 tracer, 1 matrix, 2 sum,
  ! 3 recorder); returns ierror and the op's Fortran handle.
  integer(c_int) function ordo_f08_op_create(kernel, commute, op_f) bind(C, name="ordo_f08_op_create")
    integer(c_int), value :: kernel, commute
    integer(c_int), intent(out) :: op_f
    type(MPI_Op) :: op
    integer :: ierr
    ierr = MPI_ERR_OTHER
    op = MPI_OP_NULL
    select case (kernel)
    case (0); call MPI_Op_create(f08_tracer, commute /= 0, op, ierr)
    case (1); call MPI_Op_create(f08_matrix, commute /= 0, op, ierr)
    case (2); call MPI_Op_create(f08_sum, commute /= 0, op, ierr)
    case (3); call MPI_Op_create(f08_recorder, commute /= 0, op, ierr)
    end select
    op_f = op%MPI_VAL
    ordo_f08_op_create = ierr
  end function
end module
