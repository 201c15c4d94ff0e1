/* Finding (DETECT): a derived datatype freed with MPI_Type_free before a
 * reduction (the program kept a copy of its handle) makes every reduction
 * routine abort inside the library ("Assertion failed in file
 * src/mpi/datatype/typerep/src/typerep_yaksa_pack.c at line 286: FALSE",
 * "memcpy argument memory ranges overlap") instead of returning an error
 * under MPI_ERRORS_RETURN. The freed handle is an invalid argument (MPI-4.1
 * 2.5.1, 5.1.9); the standard does not require it to be detected, but MPICH
 * validates handles (MPI_DATATYPE_NULL and an uncommitted datatype are
 * reported as errors in the same calls).
 *
 *   mpicc.mpich detect_freed_datatype_aborts.c -o repro
 *   mpiexec.mpich -n 2 ./repro
 *
 * Exits 0 when MPI_Allreduce returns an error code, 2 when it returns
 * MPI_SUCCESS; the abort ends the job with a non-zero code. MPICH 4.0.2
 * aborts at 1 to 4 processes, in the blocking, nonblocking, persistent and
 * large-count forms of all seven routines. No upstream report found. */
#include <mpi.h>
#include <stdio.h>

static void sum4(void* in, void* inout, int* len, MPI_Datatype* dt) {
  (void)dt;
  for (int i = 0; i < 4 * *len; ++i) ((int*)inout)[i] += ((int*)in)[i];
}

int main(int argc, char** argv) {
  int rank, rc;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Op op;
  MPI_Op_create(sum4, 0, &op);
  MPI_Datatype t, stale;
  MPI_Type_contiguous(4, MPI_INT, &t);
  MPI_Type_commit(&t);
  stale = t; /* a copy of the handle, used after the free (erroneous) */
  MPI_Type_free(&t);
  int a[4] = {1, 2, 3, 4}, b[4] = {0, 0, 0, 0};
  rc = MPI_Allreduce(a, b, 1, stale, op, MPI_COMM_WORLD);
  printf("rank %d: MPI_Allreduce with a freed datatype returned %s\n", rank,
         rc == MPI_SUCCESS ? "MPI_SUCCESS (accepted)" : "an error code (reported)");
  MPI_Op_free(&op);
  MPI_Finalize();
  return rc == MPI_SUCCESS ? 2 : 0;
}
