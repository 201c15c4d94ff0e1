! The seeds' examples of MPI_REDUCE with MINLOC / MAXLOC and a user op
! (MPI-2.2 Examples 5.18 to 5.20, now MPI-4.1 Section 6.9.4 and 6.9.5; the
! project's seeds/mpi-2.2-ch5.9-minloc-maxloc-user-ops.txt), written as
! Fortran programs write them: Fortran arrays, the mpi_f08 module (5.18 also
! the mpi module), the Fortran pair types, a Fortran user function. Each
! routine runs the example's program logic on every process of comm and
! hands back its own input and what it read out of the result; the C++
! check (seeds_examples.cpp) folds the inputs of all processes with the
! reference and compares.
module ordo_seeds_examples_f08
  use, intrinsic :: iso_c_binding
  use mpi_f08
  implicit none
  private
  public :: ordo_example_5_18_f08, ordo_example_5_19_f08, ordo_example_5_20_f08

  ! Example 5.20: the datatype of the call, and the calls of my_prod that
  ! received another handle.
  type(MPI_Datatype) :: call_type
  integer :: other_handle_calls = 0

contains

  ! Example 5.18: each process has ain(30); MAXLOC with the rank coerced to
  ! DOUBLE PRECISION (MPI_2DOUBLE_PRECISION); the root reads aout and ind.
  ! ain takes few distinct values, so the maximum is often held by several ranks.
  integer(c_int) function ordo_example_5_18_f08(comm_f, root, inp, aout, ind) &
      bind(C, name="ordo_example_5_18_f08")
    integer(c_int), value :: comm_f, root
    real(c_double), intent(out) :: inp(2, 30), aout(30)
    integer(c_int), intent(out) :: ind(30)
    type(MPI_Comm) :: comm
    double precision :: ain(30), in(2, 30), out(2, 30)
    integer :: i, myrank, ierr
    comm%MPI_VAL = comm_f
    call MPI_Comm_rank(comm, myrank, ierr)
    do i = 1, 30
      ain(i) = 0.5d0 * mod(3 * i + 5 * myrank, 4)
    end do
    do i = 1, 30
      in(1, i) = ain(i)
      in(2, i) = myrank  ! myrank is coerced to a double
    end do
    out = -1d0
    call MPI_Reduce(in, out, 30, MPI_2DOUBLE_PRECISION, MPI_MAXLOC, root, comm, ierr)
    aout = -1d0
    ind = -1
    if (myrank == root) then
      do i = 1, 30
        aout(i) = out(1, i)
        ind(i) = int(out(2, i))  ! rank is coerced back to an integer
      end do
    end if
    inp = in
    ordo_example_5_18_f08 = ierr
  end function

  ! Example 5.19 in Fortran: each process has len values; the minimum, the
  ! rank holding it and its local index, through MINLOC on (value, global
  ! index) pairs of REALs (MPI_2REAL; indices below 2**24 are exact).
  integer(c_int) function ordo_example_5_19_f08(comm_f, root, inp, minval_out, minrank, minindex) &
      bind(C, name="ordo_example_5_19_f08")
    integer(c_int), value :: comm_f, root
    real(c_float), intent(out) :: inp(2), minval_out
    integer(c_int), intent(out) :: minrank, minindex
    integer, parameter :: len = 1000
    type(MPI_Comm) :: comm
    real :: val(len), in(2), out(2)
    integer :: i, myrank, ierr
    comm%MPI_VAL = comm_f
    call MPI_Comm_rank(comm, myrank, ierr)
    do i = 1, len
      val(i) = real(100 + mod(7 * i + myrank, 50))
    end do
    ! The planted minima: -2.5 on rank 1 at 700 and on rank 3 at 5 (the
    ! lower rank wins the tie), -2.0 on rank 2 at 10.
    if (myrank == 1) val(700) = -2.5
    if (myrank == 3) val(5) = -2.5
    if (myrank == 2) val(10) = -2.0
    ! local minloc
    in(1) = val(1)
    in(2) = 1
    do i = 2, len
      if (in(1) > val(i)) then
        in(1) = val(i)
        in(2) = i
      end if
    end do
    ! global minloc
    in(2) = myrank * len + in(2)
    out = -1.0
    call MPI_Reduce(in, out, 1, MPI_2REAL, MPI_MINLOC, root, comm, ierr)
    minval_out = -1.0
    minrank = -1
    minindex = -1
    if (myrank == root) then
      minval_out = out(1)
      minrank = int(out(2)) / len
      minindex = mod(int(out(2)), len)
    end if
    inp = in
    ordo_example_5_19_f08 = ierr
  end function

  ! Example 5.20's user function in Fortran: inoutvec(i) = invec(i) * inoutvec(i)
  ! for the complex numbers of a contiguous(2, MPI_DOUBLE_PRECISION) type.
  subroutine my_prod(invec, inoutvec, len, datatype)
    type(c_ptr), value :: invec, inoutvec
    integer :: len
    type(MPI_Datatype) :: datatype
    complex(c_double_complex), pointer :: a(:), b(:)
    integer :: i
    call c_f_pointer(invec, a, [len])
    call c_f_pointer(inoutvec, b, [len])
    do i = 1, len
      b(i) = a(i) * b(i)
    end do
    if (datatype /= call_type) other_handle_calls = other_handle_calls + 1
  end subroutine

  ! Example 5.20: the product of 100 complex numbers, reduced to root with
  ! the Fortran user function (commute as given); *other_handles: the calls
  ! of my_prod that received a datatype other than the call's.
  integer(c_int) function ordo_example_5_20_f08(comm_f, root, commute, inp, answer, other_handles) &
      bind(C, name="ordo_example_5_20_f08")
    integer(c_int), value :: comm_f, root, commute
    complex(c_double_complex), intent(out) :: inp(100), answer(100)
    integer(c_int), intent(out) :: other_handles
    type(MPI_Comm) :: comm
    type(MPI_Datatype) :: ctype
    type(MPI_Op) :: myop
    complex(c_double_complex) :: a(100)
    integer :: i, myrank, ierr
    comm%MPI_VAL = comm_f
    call MPI_Comm_rank(comm, myrank, ierr)
    ! Small integer parts keep every product exact, in any order.
    do i = 1, 100
      a(i) = cmplx(mod(myrank + i, 3) - 1, mod(myrank * i, 2) + 1, kind=c_double_complex)
    end do
    call MPI_Type_contiguous(2, MPI_DOUBLE_PRECISION, ctype, ierr)
    if (ierr == MPI_SUCCESS) call MPI_Type_commit(ctype, ierr)
    call_type = ctype
    other_handle_calls = 0
    if (ierr == MPI_SUCCESS) call MPI_Op_create(my_prod, commute /= 0, myop, ierr)
    answer = (0d0, 0d0)
    if (ierr == MPI_SUCCESS) call MPI_Reduce(a, answer, 100, ctype, myop, root, comm, ierr)
    if (ierr == MPI_SUCCESS) call MPI_Op_free(myop, ierr)
    if (ierr == MPI_SUCCESS) call MPI_Type_free(ctype, ierr)
    inp = a
    other_handles = other_handle_calls
    ordo_example_5_20_f08 = ierr
  end function
end module
