/* Finding: with the sm collective component selected (coll_sm_priority 100),
 * Open MPI 4.1.4's MPI_Reduce and MPI_Allreduce on a datatype whose size is
 * above coll_sm_control_size (4096 bytes by default: contiguous(1025,
 * MPI_INT) and larger; 1024 ints are right) crash with a segmentation fault
 * at address 0 when it is the first collective coll/sm serves on the
 * communicator, and hang (one core busy in mca_coll_sm_reduce_intra, never
 * returning) when the communicator was used by coll/sm before (here an
 * MPI_Barrier). The user op (the only kind of op valid on such a type) and
 * the count (1 and more) do not matter. MPI-4.1 Sections 6.9.1 and
 * 6.9.5: MPI_Reduce and MPI_Allreduce with a committed derived datatype and
 * a user op are valid calls and must return the combined values.
 *
 * From the 4.1.4 source (ompi/mca/coll/sm/coll_sm_reduce.c,
 * coll_sm_module.c), as read: mca_coll_sm_reduce_intra hands a datatype
 * larger than coll_sm_control_size to the reduce of the module below it,
 * but that module is only recorded by the lazy set-up of the first
 * collective coll/sm runs itself, which this path does not run: before it
 * the pointer is NULL (the crash); after it, it is the communicator's
 * reduce at that time, coll/sm's own, so the call re-enters itself forever
 * (the hang). MPI_Allreduce of coll/sm is its reduce and a broadcast. The
 * threshold follows coll_sm_control_size, not coll_sm_fragment_size: with
 * --mca coll_sm_control_size 8192, 2048 ints are right and 2049 crash.
 *
 *   mpicc.openmpi coll_sm_large_element_reduce.c -o repro
 *   mpiexec.openmpi --allow-run-as-root --oversubscribe \
 *     --mca coll_sm_priority 100 -n 2 ./repro allreduce 1025
 *                              (SIGSEGV on 4.1.4, exit code 139; the same
 *                               with reduce, at 2 to 8 processes)
 *   ... --mca coll_sm_priority 100 -n 2 ./repro allreduce 1024     (right)
 *   ... --mca coll_sm_priority 100 -n 2 ./repro reduce 1025 warm
 *                              (a barrier first: the call never returns;
 *                               exit code 3 after 10 s on 4.1.4)
 *   ... -n 2 ./repro allreduce 1025 warm   (coll/sm not selected: right)
 *
 * Arguments: reduce|allreduce, the element's size in ints (default 1025),
 * an optional count of elements (default 1) and "warm" (an MPI_Barrier on
 * the communicator before the call). Exits 0 when the call returns the sum
 * of every rank's input (at the root of MPI_Reduce, on every rank of
 * MPI_Allreduce), 1 when a value is wrong, 3 when the call has not returned
 * after 10 s (a hang), 2 on bad arguments; a crash ends the job with the
 * signal. No upstream report found (the same code is in the v4.1.x and
 * v5.0.x branches). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A user op that adds the ints of each element; commutative. */
static void add_ints(void* in, void* inout, int* len, MPI_Datatype* dt) {
  int bytes;
  MPI_Type_size(*dt, &bytes);
  const long n = (long)*len * (bytes / (int)sizeof(int));
  for (long i = 0; i < n; ++i) ((int*)inout)[i] += ((const int*)in)[i];
}

static void on_alarm(int sig) {
  (void)sig;
  static const char text[] = "the call did not return within 10 s\n";
  if (write(2, text, sizeof text - 1) < 0) _exit(3);
  _exit(3);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int all = argc > 1 && strcmp(argv[1], "allreduce") == 0;
  int warm = 0, numbers[2] = {1025, 1}, given = 0,
      bad = argc < 2 || (!all && strcmp(argv[1], "reduce") != 0);
  for (int i = 2; i < argc; ++i) {
    if (strcmp(argv[i], "warm") == 0)
      warm = 1;
    else if (given < 2)
      numbers[given++] = atoi(argv[i]);
    else
      bad = 1;
  }
  const int ints = numbers[0], count = numbers[1];
  if (bad || ints < 1 || count < 1) {
    if (rank == 0) fprintf(stderr, "usage: repro reduce|allreduce [INTS [COUNT]] [warm]\n");
    MPI_Finalize();
    return 2;
  }
  MPI_Datatype element;
  MPI_Type_contiguous(ints, MPI_INT, &element);
  MPI_Type_commit(&element);
  MPI_Op op;
  MPI_Op_create(add_ints, 1, &op);
  const long n = (long)ints * count;
  int* send = malloc(sizeof(int) * (size_t)n);
  int* recv = malloc(sizeof(int) * (size_t)n);
  for (long i = 0; i < n; ++i) {
    send[i] = rank + 1 + (int)(i % 1000);
    recv[i] = -1;
  }
  if (warm) MPI_Barrier(MPI_COMM_WORLD);
  signal(SIGALRM, on_alarm);
  alarm(10);
  if (all)
    MPI_Allreduce(send, recv, count, element, op, MPI_COMM_WORLD);
  else
    MPI_Reduce(send, recv, count, element, op, 0, MPI_COMM_WORLD);
  alarm(0);
  int ok = 1;
  if (all || rank == 0)
    for (long i = 0; i < n && ok; ++i) {
      long want = 0; /* the sum over the ranks of their inputs */
      for (int r = 0; r < size; ++r) want += r + 1 + (int)(i % 1000);
      if (recv[i] != want) {
        printf("rank %d: int %ld: expected %ld, observed %d\n", rank, i, want, recv[i]);
        ok = 0;
      }
    }
  printf("rank %d: MPI_%s of %d element(s) of %d bytes returned%s\n", rank,
         all ? "Allreduce" : "Reduce", count, ints * (int)sizeof(int),
         ok ? (all || rank == 0 ? ", values right" : "") : ", values wrong");
  MPI_Op_free(&op);
  MPI_Type_free(&element);
  free(send);
  free(recv);
  MPI_Finalize();
  return ok ? 0 : 1;
}
