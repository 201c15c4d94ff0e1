/* Finding: MPI_Reduce_scatter_init (persistent) with a non-commutative user
 * op on a datatype whose extent is larger than its data (padding, here
 * resized(0, 24, contiguous(4, MPI_INT))) writes past the end of a heap
 * block inside the library: glibc aborts ("free(): invalid pointer",
 * "double free or corruption", "corrupted size vs. prev_size") in the call
 * or later. A one-process communicator and recvcounts = {4} are enough;
 * MPI_IN_PLACE or not makes no difference. MPI_Reduce_scatter and
 * MPI_Ireduce_scatter with the same arguments are fine, and so is the same
 * call with a commutative op. (MPI-4.1 Sections 6.10.2 and 6.13: the
 * persistent form has the semantics of the blocking one.)
 *
 * The op keeps its left operand (inoutvec := invec), which is associative
 * and not commutative; with one process the result is the input.
 *
 *   mpicc.mpich reduce_scatter_init_noncommutative_padded_type_heap_corruption.c -o repro
 *   mpiexec.mpich -n 1 ./repro      (also -n 2)
 *
 * Mode "minloc" (algorithm variant mpich.ireduce_scatter.intra.sched_noncommutative
 * only): forced to the noncommutative schedule, the same call with the
 * predefined MPI_MINLOC on MPI_DOUBLE_INT (a pair type with padding: 12
 * bytes of data, extent 16), 7 elements on a one-process communicator,
 * corrupts the heap the same way; the library's own choice takes another
 * algorithm for a commutative op and is right. "value-index" takes the pair
 * type from MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT) (MPI-4.1 Section
 * 6.9.4; the library returns MPI_DOUBLE_INT); a number sets the count:
 *
 *   mpiexec.mpich -n 1 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_IREDUCE_SCATTER_INTRA_ALGORITHM sched_noncommutative \
 *       -genv MPIR_CVAR_COLLECTIVE_FALLBACK print ./repro minloc
 *
 * Measured 2026-11-28 with "minloc" at 1 process: 1 element is right on
 * every release. At 7 elements (3 runs each, also with "value-index") MPICH
 * 4.0.2 aborts at MPI_Finalize (UCX "Assertion `handler->id == id' failed"
 * on the damaged heap), 4.2.1 with "munmap_chunk(): invalid pointer" and
 * 5.0.2 with "free(): invalid size" (SIGABRT, exit 6 under mpiexec). Other
 * counts, one run each: 4.0.2 aborts at 2, 4 and 1000; 4.2.1 at 2 and 1000
 * (4 passed); 5.0.2 at 4 (2 passed) and hangs at 1000 (exit 2); at 65536
 * all three return wrong pairs from element 49409 or 49410 onward, then SIGSEGV.
 * Without the variables 4.2.1 passes at 7 and 1000 ("minloc").
 *
 * Exits 0 when the call completes with the right result, 1 on a wrong
 * result; on MPICH 4.0.2 the process is killed by SIGABRT (exit code 134,
 * or 6 under mpiexec) before it can report. An alarm ends a hang with exit
 * code 2. Libraries without MPI-4 persistent collectives (Open MPI 4.1)
 * print a note and exit 0. No upstream report found. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void on_alarm(int sig) {
  (void)sig;
  static const char m[] =
      "timed out: MPI_Reduce_scatter_init / MPI_Start / MPI_Wait did not finish in 30 s\n";
  if (write(2, m, sizeof m - 1) < 0) {
  }
  _exit(2);
}

#if MPI_VERSION >= 4
static void keep_left(void* in, void* inout, int* len, MPI_Datatype* dt) {
  MPI_Aint lb, extent;
  MPI_Type_get_extent(*dt, &lb, &extent);
  for (int k = 0; k < *len; ++k)
    for (int j = 0; j < 4; ++j)
      ((int*)((char*)inout + k * extent))[j] = ((int*)((char*)in + k * extent))[j];
}

/* Mode "minloc": MPI_MINLOC on count (value, index) pairs on comm; the
 * result on one process is the input. Returns 1 when it is. */
static int minloc_pairs(MPI_Comm comm, int count, int value_index, int rank) {
  struct pair {
    double value;
    int index;
  }* send = malloc(sizeof *send * (size_t)count), *recv = malloc(sizeof *recv * (size_t)count);
  MPI_Datatype type = MPI_DOUBLE_INT;
#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
  if (value_index) MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &type);
#else
  if (value_index && rank == 0)
    printf("note: no MPI_Type_get_value_index (MPI-4.1): MPI_DOUBLE_INT is used\n");
#endif
  for (int k = 0; k < count; ++k) send[k].value = k, send[k].index = 3 * k, recv[k].value = -1;
  int recvcounts[1] = {count}, wrong = 0;
  MPI_Request req;
  MPI_Reduce_scatter_init(send, recv, recvcounts, type, MPI_MINLOC, comm, MPI_INFO_NULL, &req);
  MPI_Start(&req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Request_free(&req);
  for (int k = 0; k < count; ++k)
    if (recv[k].value != k || recv[k].index != 3 * k) {
      if (++wrong <= 3)
        printf("rank %d element %d: expected (%d, index %d), got (%g, index %d)\n", rank, k, k,
               3 * k, recv[k].value, recv[k].index);
    }
  free(send);
  free(recv);
  return wrong == 0;
}
#endif

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  signal(SIGALRM, on_alarm);
  alarm(30);
  int rank, ok = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
#if MPI_VERSION >= 4
  MPI_Comm self;
  MPI_Comm_dup(MPI_COMM_SELF, &self);
  int minloc = 0, value_index = 0, count = 7;
  for (int a = 1; a < argc; ++a) {
    minloc |= strcmp(argv[a], "minloc") == 0;
    value_index |= strcmp(argv[a], "value-index") == 0;
    if (atoi(argv[a]) > 0) count = atoi(argv[a]);
  }
  if (minloc) {
    ok = minloc_pairs(self, count, value_index, rank);
    /* More heap traffic, so that a corrupted heap shows before the exit. */
    for (int i = 0; i < 64; ++i) free(malloc(16 + 8 * (size_t)i));
    MPI_Comm_free(&self);
    if (ok) printf("rank %d: MPI_MINLOC on %d pairs gave the input back\n", rank, count);
    MPI_Finalize();
    return ok ? 0 : 1;
  }
  MPI_Datatype cells, padded;
  MPI_Type_contiguous(4, MPI_INT, &cells);
  MPI_Type_create_resized(cells, 0, 24, &padded); /* 16 bytes of data, 8 of padding */
  MPI_Type_commit(&padded);
  MPI_Op op;
  MPI_Op_create(keep_left, 0, &op);
  enum { N = 4 }; /* elements; 6 ints each */
  int send[6 * N], recv[6 * N], recvcounts[1] = {N};
  for (int i = 0; i < 6 * N; ++i) send[i] = 100 * rank + i, recv[i] = -9;
  MPI_Request req;
  MPI_Reduce_scatter_init(send, recv, recvcounts, padded, op, self, MPI_INFO_NULL, &req);
  MPI_Start(&req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Request_free(&req);
  for (int k = 0; k < N; ++k)
    for (int j = 0; j < 4; ++j)
      if (recv[6 * k + j] != send[6 * k + j]) {
        printf("rank %d element %d int %d: expected %d, got %d\n", rank, k, j, send[6 * k + j],
               recv[6 * k + j]);
        ok = 0;
      }
  /* More heap traffic, so that a corrupted heap shows before the exit. */
  for (int i = 0; i < 64; ++i) free(malloc(16 + 8 * (size_t)i));
  MPI_Op_free(&op);
  MPI_Type_free(&padded);
  MPI_Type_free(&cells);
  MPI_Comm_free(&self);
  if (ok)
    printf("rank %d: MPI_Reduce_scatter_init gave the input back and the heap is intact\n", rank);
#else
  if (rank == 0)
    printf("this library has no MPI_Reduce_scatter_init (MPI %d.%d): nothing to check\n",
           MPI_VERSION, MPI_SUBVERSION);
#endif
  MPI_Finalize();
  return ok ? 0 : 1;
}
