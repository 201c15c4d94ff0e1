/* Finding (DETECT): a user op freed with MPI_Op_free before a reduction (the
 * program kept a copy of its handle) makes the reductions crash
 * (segmentation fault or abort) or hang instead of returning an error under
 * MPI_ERRORS_RETURN. The freed handle is an invalid argument (MPI-4.1 2.5.1,
 * 6.9.5); the standard does not require it to be detected, but a library
 * that dereferences it reads freed memory.
 *
 *   mpicc.openmpi detect_freed_op_crashes.c -o repro
 *   mpiexec.openmpi --oversubscribe -n 3 ./repro
 *
 * Exits 0 when MPI_Allreduce returns an error code, 2 when it returns
 * MPI_SUCCESS, 3 when it has not returned after 20 s; a crash ends the job
 * with a non-zero code. Open MPI 4.1.4 in ordo: every collective crashes or
 * hangs at 2 and 3 processes, MPI_Reduce_local crashes. No upstream report
 * found. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static void sum4(void* in, void* inout, int* len, MPI_Datatype* dt) {
  (void)dt;
  for (int i = 0; i < 4 * *len; ++i) ((int*)inout)[i] += ((int*)in)[i];
}

static void on_alarm(int sig) {
  (void)sig;
  fprintf(stderr, "hang: MPI_Allreduce did not return within 20 s\n");
  _exit(3);
}

int main(int argc, char** argv) {
  int rank, rc;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Datatype t;
  MPI_Type_contiguous(4, MPI_INT, &t);
  MPI_Type_commit(&t);
  MPI_Op op, stale;
  MPI_Op_create(sum4, 0, &op);
  stale = op; /* a copy of the handle, used after the free (erroneous) */
  MPI_Op_free(&op);
  int a[4] = {1, 2, 3, 4}, b[4] = {0, 0, 0, 0};
  signal(SIGALRM, on_alarm);
  alarm(20);
  rc = MPI_Allreduce(a, b, 1, t, stale, MPI_COMM_WORLD);
  alarm(0);
  printf("rank %d: MPI_Allreduce with a freed op returned %s\n", rank,
         rc == MPI_SUCCESS ? "MPI_SUCCESS (accepted)" : "an error code (reported)");
  MPI_Type_free(&t);
  MPI_Finalize();
  return rc == MPI_SUCCESS ? 2 : 0;
}
