/* Finding: MPI_Reduce_scatter_block on an intercommunicator with
 * MPI_MINLOC / MPI_MAXLOC on MPI_SHORT_INT (also MPI_DOUBLE_INT and
 * MPI_LONG_INT) leaves the tail of one process's receive buffer unwritten
 * when a block holds 8256 bytes of data or more (1376 MPI_SHORT_INT, 688
 * MPI_DOUBLE_INT) and the receiving group has 4 or more processes.
 * MPI-4.1 Section 6.10.1: on an intercommunicator the reduction of one
 * group's send buffers is scattered among the processes of the other group
 * in blocks of recvcount elements; each group's send buffers hold
 * n * recvcount elements, n the size of that group, and both groups reduce
 * the same number of elements.
 *
 * Group A is world rank 0 alone, group B the other ranks (as ordo's
 * "inter-1-n"). The reduction of group A's send buffers is A's own buffer,
 * so B's process j must receive elements j*1376 .. j*1376+1375 of it.
 *
 *   mpicc.mpich intercomm_reduce_scatter_block_pair_type_unwritten_tail.c -o repro
 *   mpiexec.mpich -n 5 ./repro             (MPI_Ireduce_scatter_block)
 *   mpiexec.mpich -n 5 ./repro blocking    (MPI_Reduce_scatter_block)
 *
 * Needs at least 5 processes. Exits 0 when every process receives its
 * block, 1 otherwise (2 on too few processes, 3 when the alarm ends a hang).
 * MPICH 4.0.2: with 5 or 6 processes, B's local rank 3 keeps the fill
 * pattern from element 1373 on (nonblocking), or the blocking call fails
 * there with "Message truncated" (and a process may then die of SIGSEGV in
 * MPI_Comm_free / MPI_Finalize). A block is 1376 * 6 = 8256 bytes of data;
 * 1375 elements per block are right. MPI_FLOAT_INT, MPI_2INT (no gap) and
 * MPI_LONG_DOUBLE_INT are right. With 4 processes (3 receivers) it is right.
 * The fault also shows without a reduction: MPI_Scatter of 4096
 * MPI_SHORT_INT per process on 4 processes of MPI_COMM_WORLD fails with
 * "Message truncated" at rank 3, and so does MPI_Recv of 1376 MPI_SHORT_INT
 * from an MPI_Send of the same 8256 bytes as MPI_PACKED. Open MPI 4.1.4 is
 * right. No upstream report found. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BLOCK 1376 /* MPI_SHORT_INT elements per process of group B; 1375 passes */

typedef struct {
  short value;
  int index;
} short_int;

static void on_alarm(int sig) {
  (void)sig;
  static const char m[] = "timed out: MPI_(I)reduce_scatter_block did not finish in 30 s\n";
  if (write(2, m, sizeof m - 1) < 0) {
  }
  _exit(3);
}

static short a_value(long k) { return (short)(k % 1000); }
static short b_value(long k, int r) { return (short)((k + r) % 7); }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  signal(SIGALRM, on_alarm);
  alarm(30);
  int rank, size, ok = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int blocking = argc > 1 && strcmp(argv[1], "blocking") == 0;
  if (size < 5) {
    if (rank == 0) fprintf(stderr, "needs at least 5 processes (a group of 4 receivers)\n");
    MPI_Finalize();
    return 2;
  }
  const int in_a = rank == 0;
  MPI_Comm local, inter;
  MPI_Comm_split(MPI_COMM_WORLD, in_a, rank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, in_a ? 1 : 0, 17, &inter);
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  int lrank, lsize, rsize;
  MPI_Comm_rank(local, &lrank);
  MPI_Comm_size(local, &lsize);
  MPI_Comm_remote_size(inter, &rsize);

  /* Both groups reduce total elements: A (1 process) sends total with
   * recvcount total; B (size-1 processes) sends total with recvcount BLOCK. */
  const long total = (long)BLOCK * (size - 1);
  const int recvcount = in_a ? (int)total : BLOCK;
  short_int* send = malloc(sizeof(short_int) * total);
  short_int* recv = malloc(sizeof(short_int) * recvcount);
  for (long k = 0; k < total; ++k) {
    memset(&send[k], 0, sizeof send[k]);
    send[k].value = in_a ? a_value(k) : b_value(k, lrank);
    send[k].index = in_a ? (int)k : lrank;
  }
  memset(recv, 0x5A, sizeof(short_int) * recvcount);

  int rc;
  if (blocking) {
    rc = MPI_Reduce_scatter_block(send, recv, recvcount, MPI_SHORT_INT, MPI_MINLOC, inter);
  } else {
    MPI_Request req;
    rc = MPI_Ireduce_scatter_block(send, recv, recvcount, MPI_SHORT_INT, MPI_MINLOC, inter, &req);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  const char* call = blocking ? "MPI_Reduce_scatter_block" : "MPI_Ireduce_scatter_block";
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, msg, &len);
    msg[strcspn(msg, "\n")] = '\0'; /* the first line of the error stack */
    printf("world rank %d (group %s rank %d): %s returned an error: %s\n", rank, in_a ? "A" : "B",
           lrank, call, msg);
    ok = 0;
  } else {
    long wrong = 0, first = -1;
    short_int want_first = {0, 0};
    for (long i = 0; i < recvcount; ++i) {
      short_int want;
      if (in_a) { /* minloc over B's ranks of (k + r) % 7: smallest value, then smallest rank */
        want.value = b_value(i, 0), want.index = 0;
        for (int r = 1; r < rsize; ++r)
          if (b_value(i, r) < want.value) want.value = b_value(i, r), want.index = r;
      } else {
        const long k = (long)lrank * BLOCK + i;
        want.value = a_value(k), want.index = (int)k;
      }
      if (recv[i].value != want.value || recv[i].index != want.index) {
        if (first < 0) first = i, want_first = want;
        ++wrong;
      }
    }
    if (wrong) {
      printf(
          "world rank %d (group %s rank %d of %d): %ld of %d elements wrong from element %ld on: "
          "expected (%d, idx %d), got (%d, idx %d)%s\n",
          rank, in_a ? "A" : "B", lrank, lsize, wrong, recvcount, first, want_first.value,
          want_first.index, recv[first].value, recv[first].index,
          recv[first].index == 0x5A5A5A5A ? " = the 0x5A fill, never written" : "");
      ok = 0;
    }
  }
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0)
    printf(
        "%s, MPI_SHORT_INT, MPI_MINLOC, intercommunicator 1 + %d processes, %d elements per "
        "block of group B: %s\n",
        call, size - 1, BLOCK, all ? "every process received its block" : "FAILED");
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  free(send);
  free(recv);
  MPI_Finalize();
  return all ? 0 : 1;
}
