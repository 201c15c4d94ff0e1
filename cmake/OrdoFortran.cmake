# The Fortran layer's language (conformance/harness/fortran/): enabled only
# when the vendor adapter names the library's own Fortran wrapper
# (ORDO_FORTRAN_WRAPPER, e.g. /usr/bin/mpifort.mpich, set by tools/runner/build.py)
# and it compiles a program of each module. The wrapper is the Fortran
# compiler itself, so every Fortran source is built as the library says.
#
# Sets ORDO_FORTRAN_DEFINITIONS (for the layer and the harness):
#   ORDO_HAVE_FORTRAN_F08 / ORDO_HAVE_FORTRAN_F90   `use mpi_f08` / `use mpi` compile
#   ORDO_FORTRAN_F08_PERSISTENT / ORDO_FORTRAN_F90_PERSISTENT   MPI_Reduce_init links
#   ORDO_FORTRAN_F08_LARGE_COUNT   MPI_Reduce with an INTEGER(MPI_COUNT_KIND) count
#   ORDO_FORTRAN_F08_OP_CREATE_C   MPI_Op_create_c (an MPI_User_function_c) links
#   ORDO_FORTRAN_SUBARRAYS   MPI_SUBARRAYS_SUPPORTED is .true. in mpi_f08
# and ORDO_FORTRAN_LACKS: why there is no Fortran layer (empty when there is one).
set(ORDO_FORTRAN_WRAPPER "" CACHE FILEPATH "The library's Fortran wrapper (mpifort.mpich); empty: no Fortran bindings")
set(ORDO_FORTRAN_DEFINITIONS "")
set(ORDO_FORTRAN_LACKS "")
if(ORDO_ABI_BUILD)
  # MPI-5.0's standard ABI is the C ABI (libmpi_abi.so.1): the Fortran bindings
  # are not part of it, so a build through the ABI has no Fortran layer.
  set(ORDO_FORTRAN_LACKS "the MPI-5.0 standard ABI is a C ABI: the Fortran bindings are not part of it (this build goes through libmpi_abi)")
elseif(NOT ORDO_FORTRAN_WRAPPER)
  set(ORDO_FORTRAN_LACKS "the vendor adapter names no Fortran wrapper (compilers.fortran)")
elseif(NOT EXISTS "${ORDO_FORTRAN_WRAPPER}")
  set(ORDO_FORTRAN_LACKS "the Fortran wrapper ${ORDO_FORTRAN_WRAPPER} is not installed")
else()
  set(CMAKE_Fortran_COMPILER "${ORDO_FORTRAN_WRAPPER}")
  enable_language(Fortran)
  include(CheckFortranSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS "-ffree-line-length-none")
  check_fortran_source_compiles("program p\n use mpi_f08\n integer :: a(1), b(1)\n call MPI_Reduce(a, b, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)\nend program"
                                ORDO_HAVE_FORTRAN_F08 SRC_EXT F90)
  check_fortran_source_compiles("program p\n use mpi\n integer :: a(1), b(1), ierr\n call MPI_Reduce(a, b, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, ierr)\nend program"
                                ORDO_HAVE_FORTRAN_F90 SRC_EXT F90)
  check_fortran_source_compiles("program p\n use mpi_f08\n integer :: a(1), b(1)\n type(MPI_Request) :: r\n call MPI_Reduce_init(a, b, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, MPI_INFO_NULL, r)\nend program"
                                ORDO_FORTRAN_F08_PERSISTENT SRC_EXT F90)
  check_fortran_source_compiles("program p\n use mpi\n integer :: a(1), b(1), r, ierr\n call MPI_Reduce_init(a, b, 1, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD, MPI_INFO_NULL, r, ierr)\nend program"
                                ORDO_FORTRAN_F90_PERSISTENT SRC_EXT F90)
  check_fortran_source_compiles("program p\n use mpi_f08\n integer :: a(1), b(1)\n integer(MPI_COUNT_KIND) :: n = 1\n call MPI_Reduce(a, b, n, MPI_INTEGER, MPI_SUM, 0, MPI_COMM_WORLD)\nend program"
                                ORDO_FORTRAN_F08_LARGE_COUNT SRC_EXT F90)
  # Linked, not only compiled: without an interface in the module the call
  # compiles as an external procedure and fails at the link (MPICH 4.0.2).
  check_fortran_source_compiles("module m\n contains\n subroutine f(a, b, n, t)\n use, intrinsic :: iso_c_binding\n use mpi_f08\n type(c_ptr), value :: a, b\n integer(MPI_COUNT_KIND) :: n\n type(MPI_Datatype) :: t\n end subroutine\nend module\nprogram p\n use mpi_f08\n use m\n type(MPI_Op) :: op\n call MPI_Op_create_c(f, .false., op)\nend program"
                                ORDO_FORTRAN_F08_OP_CREATE_C SRC_EXT F90)
  check_fortran_source_compiles("program p\n use mpi_f08\n integer(kind=merge(4, 3, MPI_SUBARRAYS_SUPPORTED)) :: x\n x = 1\nend program"
                                ORDO_FORTRAN_SUBARRAYS SRC_EXT F90)
  unset(CMAKE_REQUIRED_FLAGS)
  foreach(feature ORDO_HAVE_FORTRAN_F08 ORDO_HAVE_FORTRAN_F90 ORDO_FORTRAN_F08_PERSISTENT
                  ORDO_FORTRAN_F90_PERSISTENT ORDO_FORTRAN_F08_LARGE_COUNT ORDO_FORTRAN_F08_OP_CREATE_C
                  ORDO_FORTRAN_SUBARRAYS)
    if(${feature})
      list(APPEND ORDO_FORTRAN_DEFINITIONS ${feature}=1)
    endif()
  endforeach()
  if(NOT ORDO_HAVE_FORTRAN_F08 AND NOT ORDO_HAVE_FORTRAN_F90)
    set(ORDO_FORTRAN_LACKS "${ORDO_FORTRAN_WRAPPER} compiles neither `use mpi_f08` nor `use mpi`")
  else()
    # The libraries the wrapper links (libmpichfort, libmpi_usempif08, ...),
    # for the C++ executables that link the Fortran layer (MPI::MPI_Fortran).
    set(MPI_Fortran_COMPILER "${ORDO_FORTRAN_WRAPPER}")
    find_package(MPI REQUIRED COMPONENTS Fortran)
  endif()
endif()
