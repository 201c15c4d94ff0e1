/* Finding (MUST): the Fortran binding of MPI_REDUCE_SCATTER_INIT corrupts
 * the process's heap. A persistent MPI_REDUCE_SCATTER_INIT through the mpif.h
 * binding (every recvcount 0, MPI_SUM on MPI_INTEGER, 2 processes), started,
 * completed and freed, leaves the heap damaged: glibc aborts the process in a
 * later free() ("free(): invalid next size (fast)", here in MPI_Finalize).
 * The same calls through the C binding leave the heap intact. The call is
 * valid (MPI-4.1 and MPI-5.0 Sections 6.13 and 6.10.2: a recvcount may be 0).
 * This program calls the binding's symbol from C with Fortran handles, as a
 * Fortran program does.
 *
 *   mpicc.openmpi fortran_reduce_scatter_heap_corruption.c -o repro -lmpi_mpifh
 *   mpiexec.openmpi --oversubscribe -n 2 ./repro
 *
 * Exits 0 when MPI_Finalize returns (the heap damage, if any, went unseen);
 * the damage ends the job with a glibc abort (exit code 134, signal 6) or a
 * segmentation fault (139, signal 11). Open MPI 5.0.7 (Debian 13): ends so
 * at 2 processes (every run; ordo findings --recheck: signal 11, 3 of 3),
 * exits 0 at 1 and 3, hung at 4 (five requests in a row). Through the same
 * binding, recvcounts 3, MPI_REDUCE_SCATTER_BLOCK_INIT, MPI_IREDUCE_SCATTER
 * and MPI_ALLREDUCE_INIT exit 0 at 1 to 4 processes. 6.0.0rc2: exits 0
 * (3 of 3). 4.1.4 has no MPI_REDUCE_SCATTER_INIT. No upstream report found. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* The mpif.h binding of MPI_REDUCE_SCATTER_INIT (libmpi_mpifh). */
void mpi_reduce_scatter_init_(void* sendbuf, void* recvbuf, MPI_Fint* recvcounts,
                              MPI_Fint* datatype, MPI_Fint* op, MPI_Fint* comm, MPI_Fint* info,
                              MPI_Fint* request, MPI_Fint* ierror);

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Fint* counts = calloc(size, sizeof(MPI_Fint)); /* every recvcount 0 */
  MPI_Fint* send = calloc(1, sizeof(MPI_Fint));
  MPI_Fint* recv = calloc(1, sizeof(MPI_Fint));
  MPI_Fint type = MPI_Type_c2f(MPI_INTEGER), op = MPI_Op_c2f(MPI_SUM);
  MPI_Fint comm = MPI_Comm_c2f(MPI_COMM_WORLD), info = MPI_Info_c2f(MPI_INFO_NULL);
  MPI_Fint freq, ierr;
  mpi_reduce_scatter_init_(send, recv, counts, &type, &op, &comm, &info, &freq, &ierr);
  if (ierr != MPI_SUCCESS) {
    printf("rank %d: MPI_REDUCE_SCATTER_INIT returned %d\n", rank, (int)ierr);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Request req = MPI_Request_f2c(freq);
  MPI_Start(&req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Request_free(&req);
  printf("rank %d: completed; MPI_Finalize next (a crash there is the finding)\n", rank);
  free(send);
  free(recv);
  free(counts);
  MPI_Finalize();
  return 0;
}
