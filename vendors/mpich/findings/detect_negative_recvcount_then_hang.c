/* Finding (DETECT): at one process, MPI_Reduce_scatter_block and
 * MPI_Ireduce_scatter_block with recvcount = -3 return MPI_SUCCESS (the
 * negative count is not checked; MPI-4.1 6.10.1: recvcount is a non-negative
 * integer) and corrupt the library's state: a later call aborts (this
 * program: SIGABRT, exit code 6, checked with MPICH 4.0.2) or, in ordo's
 * harness, does not return (the job hangs).
 *
 *   mpicc.mpich detect_negative_recvcount_then_hang.c -o repro
 *   mpiexec.mpich -n 1 ./repro
 *
 * Exits 0 when every step returns; 3 when a step has not returned after 20 s
 * (the hang; the step is printed first); 2 when the erroneous calls were
 * accepted but nothing hung or aborted; the abort ends the job non-zero. MPICH 4.0.2 in ordo's
 * harness: the case after
 * Detect.a_negative_recvcount_is_reported_in_reduce_scatter_and_reduce_scatter_block
 * (MPI_Reduce_scatter_block_init, reported) exceeds the case time limit at 1
 * process. No upstream report found. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char* volatile step = "start";
static void on_alarm(int sig) {
  (void)sig;
  fprintf(stderr, "hang: '%s' did not return within 20 s\n", step);
  _exit(3);
}

int main(int argc, char** argv) {
  int accepted = 0;
  MPI_Init(&argc, &argv);
  signal(SIGALRM, on_alarm);
  alarm(20);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int a[64] = {0}, b[64] = {0};
  MPI_Request req;
  step = "MPI_Reduce_scatter_block(recvcount -3)";
  accepted += MPI_Reduce_scatter_block(a, b, -3, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS;
  step = "MPI_Ireduce_scatter_block(recvcount -3) + MPI_Wait";
  if (MPI_Ireduce_scatter_block(a, b, -3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req) == MPI_SUCCESS) {
    ++accepted;
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  step = "MPI_Comm_dup";
  MPI_Comm dup, half;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  step = "MPI_Comm_split";
  MPI_Comm_split(dup, 0, 0, &half);
  step = "MPI_Allreduce on the new communicator";
  MPI_Allreduce(a, b, 1, MPI_INT, MPI_SUM, half);
  step = "MPI_Comm_free";
  MPI_Comm_free(&half);
  MPI_Comm_free(&dup);
  printf("every step returned; %d erroneous calls accepted\n", accepted);
  MPI_Finalize();
  return accepted ? 2 : 0;
}
