/* Findings (DETECT): two erroneous calls that end the process with a
 * segmentation fault instead of returning an error code under
 * MPI_ERRORS_RETURN:
 *   1. MPI_Reduce_local(MPI_IN_PLACE, ...)  (MPI-4.1 6.9.7: not allowed)
 *   2. MPI_Exscan on an intercommunicator   (MPI-4.1 6.11: intracommunicators only)
 *
 *   mpicc.openmpi detect_crashes.c -o repro
 *   mpiexec.openmpi -n 2 ./repro 1    # or 2
 *
 * Exits 0 when the call returns (prints what it returned); a crash ends the
 * job with the signal. Open MPI 4.1.4 crashes in both. No upstream report
 * found. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int rank, size, rc = MPI_SUCCESS, which = argc > 1 ? atoi(argv[1]) : 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  int a[3] = {1, 2, 3}, b[3] = {0, 0, 0};
  if (which == 1) {
    rc = MPI_Reduce_local(MPI_IN_PLACE, b, 3, MPI_INT, MPI_SUM);
  } else if (size >= 2) {
    MPI_Comm local, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank == 0, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rank == 0 ? 1 : 0, 5, &inter);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    rc = MPI_Exscan(a, b, 3, MPI_INT, MPI_SUM, inter);
  }
  printf("rank %d: the erroneous call returned %s\n", rank,
         rc == MPI_SUCCESS ? "MPI_SUCCESS" : "an error code");
  MPI_Finalize();
  return 0;
}
