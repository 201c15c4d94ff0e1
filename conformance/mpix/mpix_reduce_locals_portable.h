/* MPIX_Reduce_locals: the proposed three-argument local reduction
 * (see the proposal text in the project's seeds), as ordo ships it.
 *
 *   inoutbuf := X op Y,  X = inbuf  (or inoutbuf if inbuf is MPI_IN_PLACE),
 *                        Y = argbuf (or inoutbuf if argbuf is MPI_IN_PLACE).
 *
 * inoutbuf may not be MPI_IN_PLACE; inbuf and argbuf may be the same buffer
 * but neither may be inoutbuf (MPI_ERR_BUFFER). Portable: built only on
 * MPI_Reduce_local, MPI_Pack and MPI_Unpack, so it runs on any MPI library;
 * holes of inoutbuf's datatype are never written.
 *
 * Compile mpix_reduce_locals_portable.c with -DORDO_MPIX_DEFINE_SYMBOL to get the
 * symbol MPIX_Reduce_locals itself; without it only
 * ordo_portable_reduce_locals is defined, and ordo's harness uses a
 * library's own MPIX_Reduce_locals when the library has one. */
#ifndef ORDO_MPIX_REDUCE_LOCALS_PORTABLE_H
#define ORDO_MPIX_REDUCE_LOCALS_PORTABLE_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

int ordo_portable_reduce_locals(const void* inbuf, const void* argbuf, void* inoutbuf, int count,
                                MPI_Datatype datatype, MPI_Op op);
int MPIX_Reduce_locals(const void* inbuf, const void* argbuf, void* inoutbuf, int count,
                       MPI_Datatype datatype, MPI_Op op);

#ifdef __cplusplus
}
#endif

#endif
