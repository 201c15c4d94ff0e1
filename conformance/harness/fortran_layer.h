// The C side of ordo's Fortran layer (fortran/ordo_f08.F90, fortran/ordo_f90.F90,
// built where the library has a Fortran wrapper: cmake/OrdoFortran.cmake):
// a case whose binding is f08 or f90 makes its call, and creates its witness
// ops, through these entry points, with the standard's handle conversions
// (MPI_*_c2f in, MPI_Request_f2c back).
#pragma once

#include <mpi.h>

extern "C" {
// One reduce-family call (routine, mode: ordo::ref::Routine, ordo::ref::Mode).
// in_place: the Fortran MPI_IN_PLACE is the send buffer. counts (ncounts of
// them; counts_c: the same as MPI_Count, for large): reduce_scatter's
// recvcounts, passed to the library as they are, so they live as long as the
// caller holds them (a request may read them until it completes). Returns the
// call's ierror; *request: the Fortran handle of a nonblocking call's or a
// persistent init's request.
int ordo_f08_call(int routine, int mode, int large, const void* send, void* recv, int in_place,
                  int count, const int* counts, const MPI_Count* counts_c, int ncounts,
                  MPI_Fint datatype, MPI_Fint op, int root, MPI_Fint comm, MPI_Fint* request);
int ordo_f90_call(int routine, int mode, const void* send, void* recv, int in_place, int count,
                  const int* counts, int ncounts, MPI_Fint datatype, MPI_Fint op, int root,
                  MPI_Fint comm, MPI_Fint* request);
// MPI_Op_create from Fortran with a Fortran user function for the kernel
// (FortranKernel); returns ierror and the op's Fortran handle.
int ordo_f08_op_create(int kernel, int commute, MPI_Fint* op);
int ordo_f90_op_create(int kernel, int commute, MPI_Fint* op);
// Called by those Fortran user functions with what the library gave them
// (len and the datatype's Fortran handle by reference): mpi_types.cpp.
void ordo_fortran_user_fn(int kernel, void* invec, void* inoutvec, MPI_Fint* len,
                          MPI_Fint* datatype);
}

namespace ordo::harness {
// The witness kernels of the Fortran user functions.
enum class FortranKernel { tracer = 0, matrix = 1, sum = 2, recorder = 3 };
}  // namespace ordo::harness
