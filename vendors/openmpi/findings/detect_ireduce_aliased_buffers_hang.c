/* Finding (DETECT): MPI_Ireduce with sendbuf == recvbuf (an erroneous call:
 * MPI-4.1 Section 6.9.1, the buffers of a reduction may not alias; only
 * MPI_IN_PLACE may stand for the root's input) is reported at the root
 * (MPI_ERR_ARG) but the other processes then wait in MPI_Wait forever at
 * three processes, instead of either returning an error or completing.
 * With MPI_ERRORS_RETURN on MPI_COMM_WORLD.
 *
 *   mpicc.openmpi detect_ireduce_aliased_buffers_hang.c -o repro
 *   mpiexec.openmpi --allow-run-as-root -n 3 ./repro
 *
 * Exits 0 when every process returns (an error code or MPI_SUCCESS), 3 when
 * the alarm (10 s) ends a hang. Open MPI 4.1.4: the root returns
 * MPI_ERR_ARG, processes 1 and 2 hang in MPI_Wait (ordo saw it twice at 3
 * processes; at 1, 2 and 4 processes the call returns). The blocking
 * MPI_Reduce with the same arguments returns on every process. No upstream
 * report found.
 *
 * Not a failure in ordo's records since 2026-11-25, so no waiver covers it:
 * the error came back where the call is erroneous (the root), and after an
 * error the other processes' calls are not defined to complete, so the case
 * is recorded as reported, naming the processes that never returned (the
 * rule that also judges MPICH 4.0.2's reduce_scatter_gather algorithms at 2
 * and 3 processes). The program stays as the record of the behaviour. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "hang: MPI_Ireduce did not complete within 10 s\n";
  write(2, msg, sizeof msg - 1);
  _exit(3);
}

int main(int argc, char** argv) {
  int rank, buf[3] = {1, 2, 3};
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  signal(SIGALRM, on_alarm);
  alarm(10);
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = MPI_Ireduce(buf, buf, 3, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &req);
  if (rc == MPI_SUCCESS && req != MPI_REQUEST_NULL) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  printf("rank %d: MPI_Ireduce(sendbuf == recvbuf) returned %s\n", rank,
         rc == MPI_SUCCESS ? "MPI_SUCCESS" : "an error");
  alarm(0);
  MPI_Finalize();
  return 0;
}
