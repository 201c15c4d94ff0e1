/* Finding (DETECT): MPI_LAND on MPI_FLOAT, an erroneous combination
 * (MPI-4.1 Section 6.9.2: the logical ops take the C integer and Logical
 * groups only), aborts the job inside the library ("Assertion failed in file
 * src/mpi/coll/op/opland.c") although MPI_ERRORS_RETURN is set, where an
 * error code is expected; other invalid combinations (MPI_SUM on MPI_BYTE)
 * do return MPI_ERR_OP.
 *
 *   mpicc.mpich logical_op_on_float_aborts.c -o repro && mpiexec.mpich -n 2 ./repro
 *
 * Exits 0 when the call returns (error code or not) and prints what it
 * returned; an abort ends the job with a non-zero code. MPICH 4.0.2 aborts.
 * No upstream report found. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  float in[3] = {1, 0, 2}, out[3];
  const int rc = MPI_Allreduce(in, out, 3, MPI_FLOAT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (rc != MPI_SUCCESS) MPI_Error_string(rc, msg, &len);
    printf("MPI_Allreduce(MPI_FLOAT, MPI_LAND) returned %s\n",
           rc == MPI_SUCCESS ? "MPI_SUCCESS" : msg);
  }
  MPI_Finalize();
  return 0;
}
