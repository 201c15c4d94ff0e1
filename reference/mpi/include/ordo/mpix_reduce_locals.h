/* The proposed three-argument local reduction (see
 * the proposal text in the project's seeds), as the reference MPI
 * provides it under the MPIX_ prefix of functions not (yet) in the standard:
 *
 *   inoutbuf := X o Y,  X = inbuf, Y = argbuf, element-wise, X the left
 *   operand (invec of a user function). MPI_IN_PLACE for inbuf or argbuf
 *   takes that input from inoutbuf; inoutbuf may not be MPI_IN_PLACE;
 *   inbuf and argbuf may be the same buffer, neither may be inoutbuf.
 *
 * A program that must also run without the reference MPI finds it at run
 * time: dlsym(RTLD_DEFAULT, "MPIX_Reduce_locals"). */
#ifndef ORDO_REFMPI_MPIX_REDUCE_LOCALS_H
#define ORDO_REFMPI_MPIX_REDUCE_LOCALS_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

int MPIX_Reduce_locals(const void* inbuf, const void* argbuf, void* inoutbuf, int count,
                       MPI_Datatype datatype, MPI_Op op);
typedef int (*MPIX_Reduce_locals_function)(const void*, const void*, void*, int, MPI_Datatype,
                                           MPI_Op);

#ifdef __cplusplus
}
#endif

#endif
