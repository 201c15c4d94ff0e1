/* Finding: the second MPI_Start of a persistent MPI_Reduce_scatter_block on an
 * intercommunicator of 4 or more processes never completes. With
 * MPI_ERRORS_RETURN on the intercommunicator (as ordo's checks set it), the
 * MPI_Wait of that start returns "Other MPI error"
 * (MPIDU_Sched_progress_state) on some processes and never returns on
 * others; with the default MPI_ERRORS_ARE_FATAL the job aborts instead
 * (persistent_intercomm_reduce_scatter_block_restart.c). A persistent
 * collective request may be started again once complete (MPI-4.1 and
 * MPI-5.0 Section 6.13); MPI_Reduce_scatter_block on an intercommunicator
 * gives each process its block of the other group's sum (MPI-4.1 and
 * MPI-5.0 Section 6.10.1).
 *
 *   mpicc.mpich persistent_intercomm_reduce_scatter_block_restart_hang.c -o repro
 *   mpiexec.mpich -n 4 ./repro
 *
 * (under a time limit: a hang never ends by itself; -n 8 ./repro 4 for two
 * groups of 4.)
 * Argument: the size of the low group (default: all but the last process).
 * Three starts of one request, new input before each; a process prints what
 * each start gives. The job does not end by itself when a start hangs: 20 s
 * into a start that has not returned a process prints "start N has not
 * returned (hang)" and keeps waiting, so that the launcher's time limit ends
 * the job. Exits 0 when every start gives the sum of the other group's inputs,
 * 1 when a start gives a wrong value or returns an error code.
 * MPICH 4.0.2 and 4.2.1: hang at -n 4 (low groups of 1 and 3), 5 (1 and 2),
 * 6 (3) and 8 (1 and 4); -n 4 with groups of 2 and 2 does not hang (the
 * restart leaves receive buffers unwritten, the fault of
 * persistent_intercomm_reduce_scatter_block_restart.c). MPICH 5.0.2: right
 * at each of these. No upstream report found (the same class as
 * pmodels/mpich#7550). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t current_start = 0;
static int world_rank = 0;

static void on_alarm(int sig) {
  (void)sig;
  char text[96];
  int n = snprintf(text, sizeof text, "world rank %d: start %d has not returned (hang)\n",
                   world_rank, (int)current_start);
  if (n > 0) (void)write(1, text, (size_t)n);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int wp;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &wp);
  const int nlow = argc > 1 ? atoi(argv[1]) : wp - 1, low = world_rank < nlow;
  MPI_Comm local, inter;
  MPI_Comm_split(MPI_COMM_WORLD, low, world_rank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? nlow : 0, 7, &inter);
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  int lsize, rsize;
  MPI_Comm_size(local, &lsize);
  MPI_Comm_remote_size(inter, &rsize);
  /* Each process sends lsize * rsize ints and receives rsize of the other
     group's sum. */
  const int recvcount = rsize, total = lsize * rsize;
  int* send = malloc(sizeof(int) * total);
  int* recv = malloc(sizeof(int) * recvcount);
  signal(SIGALRM, on_alarm);
  MPI_Request req;
  MPI_Reduce_scatter_block_init(send, recv, recvcount, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL,
                                &req);
  int bad = 0;
  for (int start = 1; start <= 3; ++start) {
    for (int i = 0; i < total; ++i) send[i] = start * 100 + world_rank;
    for (int i = 0; i < recvcount; ++i) recv[i] = -1;
    current_start = start;
    alarm(20);
    MPI_Start(&req);
    int rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    alarm(0);
    if (rc != MPI_SUCCESS) {
      char msg[MPI_MAX_ERROR_STRING];
      int len = 0;
      MPI_Error_string(rc, msg, &len);
      printf("world rank %d: start %d: MPI_Wait returned %s\n", world_rank, start, msg);
      bad = 1;
      fflush(stdout);
      continue;
    }
    int want = 0;
    for (int r = 0; r < wp; ++r)
      if ((r < nlow) != low) want += start * 100 + r;
    for (int i = 0; i < recvcount; ++i)
      if (recv[i] != want) {
        printf("world rank %d, start %d: element %d is %d, expected %d\n", world_rank, start, i,
               recv[i], want);
        bad = 1;
        break;
      }
    fflush(stdout);
  }
  MPI_Request_free(&req);
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (world_rank == 0) printf(any ? "wrong result\n" : "ok\n");
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  free(send);
  free(recv);
  MPI_Finalize();
  return any;
}
