/* Finding (DETECT): MPI_IN_PLACE as sendbuf on an intercommunicator is not
 * detected by MPI_Ireduce, MPI_Reduce_scatter, MPI_Ireduce_scatter,
 * MPI_Reduce_scatter_block and MPI_Ireduce_scatter_block: the job ends with a
 * segmentation fault (the library reads MPI_IN_PLACE as a buffer address);
 * MPI_Reduce with the root in the one-process group does not return on every
 * process (a hang). The "in place" option is not allowed on
 * intercommunicators (MPI-4.1 6.2.3); MPI_Allreduce, MPI_Iallreduce and
 * MPI_Reduce with the root in the larger group return MPI_ERR_ARG.
 *
 *   mpicc.openmpi detect_intercomm_in_place_crashes.c -o repro
 *   mpiexec.openmpi --oversubscribe -n 3 ./repro 1   # 1 Ireduce, 2 Reduce_scatter,
 *       # 3 Ireduce_scatter, 4 Reduce_scatter_block, 5 Ireduce_scatter_block,
 *       # 6 Reduce (root in the one-process group), 7 Allreduce (reported)
 *
 * The intercommunicator has world rank 0 in one group and the others in the
 * other (ordo's shape inter-1-n). Exits 0 when the call returns an error code
 * on this process, 2 when it returns MPI_SUCCESS, 3 when it has not returned
 * after 20 s; the segmentation fault ends the job with a non-zero code.
 * Open MPI 4.1.4: 1-5 crash at 2, 3 and 4 processes; 6 hangs at 3 and 4
 * (checked standalone at 3: 1-5 SIGSEGV, exit 139; 6 exit 3). 7 raised
 * MPI_ERR_BUFFER through MPI_ERRORS_ARE_FATAL while only the
 * intercommunicator had MPI_ERRORS_RETURN (hence the world's handler here).
 * No upstream report found. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void on_alarm(int sig) {
  (void)sig;
  fprintf(stderr, "hang: the call did not return within 20 s\n");
  _exit(3);
}

int main(int argc, char** argv) {
  int wrank, wsize, rc = MPI_SUCCESS, which = argc > 1 ? atoi(argv[1]) : 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  if (wsize < 2) {
    fprintf(stderr, "run with 2 or more processes\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const int low = wrank == 0;
  MPI_Comm local, inter;
  MPI_Comm_split(MPI_COMM_WORLD, low ? 0 : 1, wrank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? 1 : 0, 7, &inter);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  int lrank, lsize, rsize;
  MPI_Comm_rank(inter, &lrank);
  MPI_Comm_size(inter, &lsize);
  MPI_Comm_remote_size(inter, &rsize);
  int* buf = calloc(64 * (size_t)wsize, sizeof(int));
  int counts[64];
  for (int i = 0; i < 64; ++i) counts[i] = 3;
  MPI_Request req = MPI_REQUEST_NULL;
  signal(SIGALRM, on_alarm);
  alarm(20);
  /* Reduce: the root is the low group's only process. */
  const int root = low ? MPI_ROOT : 0;
  switch (which) {
    case 1:
      rc = MPI_Ireduce(MPI_IN_PLACE, buf, 3, MPI_INT, MPI_SUM, root, inter, &req);
      break;
    case 2:
      rc = MPI_Reduce_scatter(MPI_IN_PLACE, buf, counts, MPI_INT, MPI_SUM, inter);
      break;
    case 3:
      rc = MPI_Ireduce_scatter(MPI_IN_PLACE, buf, counts, MPI_INT, MPI_SUM, inter, &req);
      break;
    case 4:
      rc = MPI_Reduce_scatter_block(MPI_IN_PLACE, buf, 3 * rsize / lsize, MPI_INT, MPI_SUM, inter);
      break;
    case 5:
      rc = MPI_Ireduce_scatter_block(MPI_IN_PLACE, buf, 3 * rsize / lsize, MPI_INT, MPI_SUM, inter,
                                     &req);
      break;
    case 6:
      rc = MPI_Reduce(MPI_IN_PLACE, buf, 3, MPI_INT, MPI_SUM, root, inter);
      break;
    default:
      rc = MPI_Allreduce(MPI_IN_PLACE, buf, 3, MPI_INT, MPI_SUM, inter);
      break;
  }
  if (rc == MPI_SUCCESS && req != MPI_REQUEST_NULL) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  alarm(0);
  printf("world rank %d: MPI_IN_PLACE on an intercommunicator returned %s\n", wrank,
         rc == MPI_SUCCESS ? "MPI_SUCCESS (accepted)" : "an error code (reported)");
  free(buf);
  MPI_Finalize();
  return rc == MPI_SUCCESS ? 2 : 0;
}
