/* Finding (DETECT): MPI_LAND or MPI_LOR on a Fortran floating-point type
 * (MPI_REAL, MPI_REAL4, MPI_REAL8, MPI_DOUBLE_PRECISION), an erroneous
 * combination (MPI-4.1 and MPI-5.0 Section 6.9.2: the logical ops take the
 * C integer and Logical groups only), aborts the job inside the library
 * ("Abort(1) on node 0: Internal error") although MPI_ERRORS_RETURN is set,
 * where an error code (or at least a return) is expected. MPICH 4.0.2
 * returns MPI_SUCCESS for these types (it aborts on the C types instead:
 * logical_op_on_float_aborts.c); MPICH 4.2.1 aborts on both.
 *
 *   mpicc.mpich logical_op_on_fortran_real_aborts.c -o repro && mpiexec.mpich -n 2 ./repro
 *
 * Optional arguments: the routine ("allreduce", default, or "reduce_local"),
 * the datatype ("real", default, "real4", "real8" or "double_precision") and
 * the op ("land", default, "lor" or "lxor").
 * Exits 0 when the call returns (error code or not) and prints what it
 * returned; an abort ends the job, with "Abort(1) on node N: Internal error"
 * in its output (MPICH 4.2.1's Hydra then exits 1, 0, or 9 with "Killed
 * (signal 9)" from 3 processes on). Measured (-n 2; -n 3, 5, 7 for
 * allreduce real land): MPICH 4.0.2 returns MPI_SUCCESS for land, lor and
 * lxor on real and double_precision, both routines; MPICH 4.2.1 aborts for
 * land and lor on each of the four types in both routines, and returns
 * "Invalid MPI_Op" for lxor; MPICH 5.0.2 returns "Invalid MPI_Op" for all
 * three ops. No upstream report found. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const char* routine = argc > 1 ? argv[1] : "allreduce";
  const char* name = argc > 2 ? argv[2] : "real";
  MPI_Datatype type = MPI_REAL;
  if (strcmp(name, "real4") == 0) type = MPI_REAL4;
  if (strcmp(name, "real8") == 0) type = MPI_REAL8;
  if (strcmp(name, "double_precision") == 0) type = MPI_DOUBLE_PRECISION;
  const char* opname = argc > 3 ? argv[3] : "land";
  MPI_Op op = MPI_LAND;
  if (strcmp(opname, "lor") == 0) op = MPI_LOR;
  if (strcmp(opname, "lxor") == 0) op = MPI_LXOR;
  double in[3] = {1, 0, 2}, out[3] = {0, 0, 0}; /* room for 8-byte reals */
  int rc;
  if (strcmp(routine, "reduce_local") == 0) {
    rc = MPI_Reduce_local(in, out, 3, type, op);
  } else {
    rc = MPI_Allreduce(in, out, 3, type, op, MPI_COMM_WORLD);
  }
  if (rank == 0) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (rc != MPI_SUCCESS) MPI_Error_string(rc, msg, &len);
    printf("MPI_%s(MPI_%s, %s) returned %s\n", routine, name, opname,
           rc == MPI_SUCCESS ? "MPI_SUCCESS" : msg);
  }
  MPI_Finalize();
  return 0;
}
