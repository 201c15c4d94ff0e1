/* Finding (algorithm variants, interleaved datatype): forced to its
 * tsp_recexch algorithm, MPICH 4.0.2's MPI_Ireduce_scatter with a
 * commutative user op on a datatype whose elements interleave with their
 * neighbours (extent 16 bytes, true extent 48:
 * resized(0,16,indexed([2,2],[0,10],MPI_INT)), element i holds the ints 4i,
 * 4i+1, 4i+10, 4i+11, so no two elements share an int) gives wrong values
 * in the block of a process whose block does not start at element 0.
 * Measured (recvcounts n-1, n, n+1, ...): 2 processes, n = 2 (1, 2) and
 * n = 65536: process 1 wrong from its element 0, in place or not,
 * nonblocking and persistent; n = 1 (0, 1) right; 3 and 4 processes, n = 1
 * (0, 1, 2, ...): process 2 wrong. A noncommutative op (the library takes
 * another algorithm), contiguous(4,MPI_INT) and the library's own choice
 * of algorithm are right. MPI_Ireduce_scatter_block under its own
 * tsp_recexch variable has the same fault: 2 and 3 processes, n = 1, in
 * place or not, nonblocking and persistent, wrong at process 1, with the op
 * declared noncommutative too (contiguous(4,MPI_INT) right). With
 * MPIR_CVAR_IREDUCE_SCATTER_RECEXCH_KVAL=3 (and its _BLOCK_ twin) the
 * boundaries are the same. MPI-4.1 Section 6.9.1 (MPI-5.0 Section
 * 6.9.1) makes overlapping datatypes erroneous in receive buffers only, and
 * these elements do not overlap; MPI-4.1 Sections 6.10.1 and 6.12 (MPI-5.0
 * Sections 6.10.1 and 6.12): process i receives block i of the reduction,
 * and the nonblocking form delivers the blocking one's result. The same
 * fault family as variant_iallreduce_interleaved_datatype_wrong_values.c
 * (that algorithm's reduce-scatter phase). ordo met it with the crossing
 * check's interleaved datatype class (#39).
 *
 *   mpicc.mpich variant_ireduce_scatter_recexch_interleaved_datatype.c -o repro
 *   mpiexec.mpich -n 2 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_IREDUCE_SCATTER_INTRA_ALGORITHM tsp_recexch ./repro 2 i
 *   mpiexec.mpich -n 3 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_IREDUCE_SCATTER_INTRA_ALGORITHM tsp_recexch ./repro 1
 *   mpiexec.mpich -n 2 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_IREDUCE_SCATTER_BLOCK_INTRA_ALGORITHM tsp_recexch ./repro 1 b
 *
 * Arguments: n, the recvcounts being n-1, n, n+1, n-1, ... (ordo's pattern;
 * default 2), then one word of letters: i for MPI_IN_PLACE (default a
 * separate send buffer), P for the persistent form (MPI_Reduce_scatter_init,
 * MPI_Start), b for MPI_Ireduce_scatter_block (MPI_Reduce_scatter_block_init
 * with P) with n elements per process, n for a noncommutative op, c for
 * contiguous(4,MPI_INT) instead of the interleaved type. Exits 0 when every
 * process's block holds the sums of every process's contribution (computed
 * here), 1 on a wrong value (the first one printed per process), 2 after
 * 30 s of hanging; a crash ends the job. Without the variables MPICH 4.0.2
 * passes. No upstream report found (searched pmodels/mpich issues). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int interleaved = 1;

static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "hang: MPI_Ireduce_scatter did not complete in 30 s\n";
  write(2, msg, sizeof msg - 1);
  _exit(2);
}

/* The int index of cell k (0..3) of element i. */
static long cell(long i, int k) {
  if (!interleaved) return 4 * i + k;
  return 4 * i + (k < 2 ? k : 10 + (k - 2));
}

static void add(void* in, void* inout, int* len, MPI_Datatype* dt) {
  (void)dt;
  const unsigned* a = in;
  unsigned* b = inout;
  for (long i = 0; i < *len; ++i)
    for (int k = 0; k < 4; ++k) b[cell(i, k)] += a[cell(i, k)];
}

static unsigned value(int rank, long i, int k) {
  return (unsigned)(rank + 1) * 2654435761u + (unsigned)(4 * i + k);
}

static long span(long count) { /* ints of count elements */
  if (count < 1) return 1;
  return interleaved ? 4 * (count - 1) + 12 : 4 * count;
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = argc > 1 ? atoi(argv[1]) : 2;
  const char* flags = argc > 2 ? argv[2] : "";
  const int in_place = strchr(flags, 'i') != NULL;
  const int commute = strchr(flags, 'n') == NULL;
  const int persistent = strchr(flags, 'P') != NULL;
  const int block = strchr(flags, 'b') != NULL;
  if (strchr(flags, 'c')) interleaved = 0;

  int* counts = malloc(sizeof(int) * (size_t)size);
  long total = 0, first = 0;
  for (int r = 0; r < size; ++r) {
    counts[r] = block ? n : n + (r % 3) - 1;
    if (counts[r] < 0) counts[r] = 0;
    if (r < rank) first += counts[r];
    total += counts[r];
  }
  MPI_Datatype type;
  if (interleaved) {
    int lens[2] = {2, 2}, displs[2] = {0, 10};
    MPI_Datatype blocks;
    MPI_Type_indexed(2, lens, displs, MPI_INT, &blocks);
    MPI_Type_create_resized(blocks, 0, 16, &type);
    MPI_Type_free(&blocks);
  } else {
    MPI_Type_contiguous(4, MPI_INT, &type);
  }
  MPI_Type_commit(&type);
  MPI_Op op;
  MPI_Op_create(add, commute, &op);

  /* With MPI_IN_PLACE the input is the whole receive buffer. */
  unsigned* send = calloc((size_t)span(total), sizeof *send);
  unsigned* recv = calloc((size_t)span(in_place ? total : counts[rank]), sizeof *recv);
  unsigned* input = in_place ? recv : send;
  for (long i = 0; i < total; ++i)
    for (int k = 0; k < 4; ++k) input[cell(i, k)] = value(rank, i, k);

  signal(SIGALRM, on_alarm);
  alarm(30);
  MPI_Request req;
  const void* sendbuf = in_place ? MPI_IN_PLACE : send;
  if (persistent) {
    if (block)
      MPI_Reduce_scatter_block_init(sendbuf, recv, n, type, op, MPI_COMM_WORLD, MPI_INFO_NULL,
                                    &req);
    else
      MPI_Reduce_scatter_init(sendbuf, recv, counts, type, op, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Request_free(&req);
  } else if (block) {
    MPI_Ireduce_scatter_block(sendbuf, recv, n, type, op, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  } else {
    MPI_Ireduce_scatter(sendbuf, recv, counts, type, op, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  alarm(0);

  int wrong = 0;
  for (long i = 0; i < counts[rank] && !wrong; ++i)
    for (int k = 0; k < 4 && !wrong; ++k) {
      unsigned expected = 0;
      for (int r = 0; r < size; ++r) expected += value(r, first + i, k);
      if (recv[cell(i, k)] != expected) {
        wrong = 1;
        printf("rank %d: element %ld cell %d: expected %u, observed %u\n", rank, i, k, expected,
               recv[cell(i, k)]);
      }
    }
  int any;
  MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("%s\n", any ? "wrong values" : "right");
  MPI_Op_free(&op);
  MPI_Type_free(&type);
  free(send);
  free(recv);
  free(counts);
  MPI_Finalize();
  return any;
}
