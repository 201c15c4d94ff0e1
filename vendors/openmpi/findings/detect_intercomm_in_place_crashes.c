/* Finding (DETECT): MPI_IN_PLACE as sendbuf on an intercommunicator is not
 * detected by MPI_Ireduce, MPI_Reduce_scatter, MPI_Ireduce_scatter,
 * MPI_Reduce_scatter_block and MPI_Ireduce_scatter_block: the job ends with a
 * segmentation fault (the library reads MPI_IN_PLACE as a buffer address).
 * The "in place" option is not allowed on intercommunicators (MPI-4.1
 * 6.2.3); MPI_Allreduce and MPI_Iallreduce return MPI_ERR_ARG on every
 * process, and MPI_Reduce (mode 6) on some processes while another waits in
 * the call for them, which is the error reported (not this finding: see
 * below).
 *
 *   mpicc.openmpi detect_intercomm_in_place_crashes.c -o repro
 *   mpiexec.openmpi --oversubscribe -n 3 ./repro 1   # 1 Ireduce, 2 Reduce_scatter,
 *       # 3 Ireduce_scatter, 4 Reduce_scatter_block, 5 Ireduce_scatter_block,
 *       # 6 Reduce (root in the one-process group), 7 Allreduce (reported),
 *       # 8 Reduce_init + MPI_Start + MPI_Wait (persistent; MPI 4.0 or Open MPI 5)
 *   mpiexec.openmpi --oversubscribe -n 3 ./repro 8 high   # the root in the larger group
 *
 * The intercommunicator has world rank 0 in one group and the others in the
 * other (ordo's shape inter-1-n). The rooted routines (1, 6, 8) have their
 * root in the one-process group, or with a second argument `high` in the
 * larger group (its first process). Exits 0 when the call returns an error
 * code on this process, 2 when it returns MPI_SUCCESS, 3 when it has not
 * returned after 20 s and no process of the job returned an error (a hang),
 * 5 when it has not returned after 20 s while another process returned the
 * error (the error is reported: an erroneous collective may leave the others
 * waiting for the processes that returned), 4 when the library has no
 * MPI_Reduce_init; the segmentation fault ends the job with a non-zero code.
 * A process that returned MPI_SUCCESS while another returned the error
 * exits 0 as well: the error is reported, at some processes only. Exit 5
 * and that 0 are what ordo's DETECT checks count as reported ("reported on
 * k of n ranks", docs/reports.md); with exit 5 the launcher ends the job
 * with that code, since the waiting process cannot finalize.
 * Open MPI 4.1.4: 1-5 crash at 2, 3 and 4 processes (checked standalone at
 * 3: SIGSEGV, exit 139). Mode 6 at 3 processes (2026-11-28): world ranks 0
 * and 2 return MPI_ERR_ARG, world rank 1 waits in MPI_Reduce (exit 5); with
 * `high`, world rank 0 returns MPI_SUCCESS and the others MPI_ERR_ARG (exit
 * 0). Before this reproducer told a process left waiting from a hang, mode 6
 * exited 3 and was read as a hang of 4.1.4 (a waiver held ordo's case back;
 * the case passes, reported on 2 of 3 ranks, and the waiver is gone). 7 raised
 * MPI_ERR_BUFFER through MPI_ERRORS_ARE_FATAL while only the
 * intercommunicator had MPI_ERRORS_RETURN (hence the world's handler here).
 * 8 (MPI_Reduce_init), run 3 times at 2 and at 4 processes with the root in
 * each group (2026-11-28): Open MPI 5.0.7 and 6.0.0rc2 end the job with
 * SIGSEGV (exit 139) every time, the first process of the group without the
 * root dying while the others return an error code; 4.1.4 has no persistent
 * collectives (exit 4; its mpi.h says MPI 3.1, as 5.0.7's does, hence the
 * Open MPI 5 test beside MPI_VERSION).
 * No upstream report found. */
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A process whose call returned an error leaves a file named by its world
 * rank in a folder that world rank 0 made; the alarm reads them. */
static char marker_dir[64];
static char markers[64][96];
static int nmarkers = 0;
static volatile sig_atomic_t returned_code = -1; /* this process's exit code once returned */

static void say(const char* text) {
  ssize_t n = write(2, text, strlen(text));
  (void)n;
}

static void remove_markers(void) {
  for (int i = 0; i < nmarkers; ++i) unlink(markers[i]);
  if (marker_dir[0]) rmdir(marker_dir);
}

static void on_alarm(int sig) {
  (void)sig;
  if (returned_code >= 0) _exit(returned_code); /* waiting after the call: not this bug */
  for (int i = 0; i < nmarkers; ++i)
    if (access(markers[i], F_OK) == 0) {
      say("waiting: this process has not returned after 20 s, another returned the error"
          " (reported there; the erroneous call lets this one wait)\n");
      remove_markers();
      _exit(5);
    }
  say("hang: the call did not return within 20 s on this process, and no process returned"
      " an error\n");
  remove_markers();
  _exit(3);
}

int main(int argc, char** argv) {
  int wrank, wsize, rc = MPI_SUCCESS, which = argc > 1 ? atoi(argv[1]) : 1, persistent = 0;
  const int root_high = argc > 2 && strcmp(argv[2], "high") == 0;
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
  if (wrank == 0) {
    strcpy(marker_dir, "/tmp/ordo-repro-XXXXXX");
    if (mkdtemp(marker_dir) == NULL) marker_dir[0] = '\0';
  }
  MPI_Bcast(marker_dir, sizeof marker_dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  for (int i = 0; marker_dir[0] && i < wsize && i < 64; ++i)
    snprintf(markers[nmarkers++], sizeof markers[0], "%s/reported-%d", marker_dir, i);
  int* buf = calloc(64 * (size_t)wsize, sizeof(int));
  int counts[64];
  for (int i = 0; i < 64; ++i) counts[i] = 3;
  MPI_Request req = MPI_REQUEST_NULL;
  signal(SIGALRM, on_alarm);
  alarm(20);
  /* Reduce: the root is the low group's only process, or with `high` the
   * larger group's first (its other processes pass MPI_PROC_NULL). */
  const int root = !root_high   ? (low ? MPI_ROOT : 0)
                   : low        ? 0
                   : lrank == 0 ? MPI_ROOT
                                : MPI_PROC_NULL;
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
    case 8:
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
      rc =
          MPI_Reduce_init(MPI_IN_PLACE, buf, 3, MPI_INT, MPI_SUM, root, inter, MPI_INFO_NULL, &req);
      persistent = rc == MPI_SUCCESS;
      if (rc == MPI_SUCCESS) rc = MPI_Start(&req);
#else
      fprintf(stderr, "MPI_Reduce_init needs MPI 4.0 (or Open MPI 5); this library is MPI %d.%d\n",
              MPI_VERSION, MPI_SUBVERSION);
      MPI_Finalize();
      return 4;
#endif
      break;
    default:
      rc = MPI_Allreduce(MPI_IN_PLACE, buf, 3, MPI_INT, MPI_SUM, inter);
      break;
  }
  if (rc == MPI_SUCCESS && req != MPI_REQUEST_NULL) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  if (persistent && req != MPI_REQUEST_NULL) MPI_Request_free(&req);
  if (rc != MPI_SUCCESS && wrank < nmarkers) close(open(markers[wrank], O_CREAT | O_WRONLY, 0600));
  returned_code = rc == MPI_SUCCESS ? 2 : 0;
  printf("world rank %d: MPI_IN_PLACE on an intercommunicator returned %s\n", wrank,
         rc == MPI_SUCCESS ? "MPI_SUCCESS (accepted)" : "an error code (reported)");
  fflush(stdout);
  /* Every process has returned once the barrier ends (it may wait for one
   * still in the call: the alarm ends this one with its own code then). An
   * error returned on any process is the error reported, as ordo's DETECT
   * checks count it, though this one accepted the call. */
  alarm(25);
  MPI_Barrier(MPI_COMM_WORLD);
  if (returned_code == 2)
    for (int i = 0; i < nmarkers; ++i)
      if (access(markers[i], F_OK) == 0) {
        printf("world rank %d: accepted here, reported on world rank %d\n", wrank, i);
        returned_code = 0;
        break;
      }
  MPI_Barrier(MPI_COMM_WORLD);
  if (wrank < nmarkers) unlink(markers[wrank]);
  MPI_Barrier(MPI_COMM_WORLD);
  if (wrank == 0 && marker_dir[0]) rmdir(marker_dir);
  free(buf);
  MPI_Finalize();
  return returned_code;
}
