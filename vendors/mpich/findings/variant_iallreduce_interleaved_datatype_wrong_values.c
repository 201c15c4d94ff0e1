/* Finding (algorithm variants, interleaved datatype): forced to its tsp_ring
 * or tsp_recexch_reduce_scatter_recexch_allgatherv algorithm, MPICH 4.0.2's
 * MPI_Iallreduce (and MPI_Allreduce_init) with a commutative user op on a
 * datatype whose elements interleave with their neighbours (extent 16 bytes,
 * true extent 48: resized(0,16,indexed([2,2],[0,10],MPI_INT)), element i holds
 * the ints 4i, 4i+1, 4i+10, 4i+11, so no two elements share an int) leaves
 * every element after the first block of the split unreduced: from element
 * count/size on, each process keeps its own contribution (2 processes, count
 * 2: element 1 is wrong; 4 processes, count 65536: from element 16384, byte
 * 262144), and the library writes past the end of the receive buffer: with
 * buffers of exactly count elements' span, glibc aborts at free()
 * ("munmap_chunk(): invalid pointer", SIGABRT; 3 processes, count 3) or a
 * process dies of SIGSEGV, depending on the heap's layout (ordo's records:
 * SIGABRT or the launcher's SIGTERM at 2 to 8 processes, count 65536,
 * MPI_IN_PLACE). Measured at 2, 3 and 4 processes, with and without
 * MPI_IN_PLACE, nonblocking and persistent: tsp_ring from count 2 at 2, 3, 4
 * and 8 processes (count 1 is right);
 * tsp_recexch_reduce_scatter_recexch_allgatherv from a count of the largest
 * power of two not above the number of processes (2 and 3 processes from 2, 4
 * and 5 from 4 with 3 right, 8 from 8 with 7 right). Not affected: a
 * noncommutative op (the library takes another algorithm), the same blocks
 * without the resize (extent 48, not interleaved), contiguous(4,MPI_INT), the
 * library's own choice of algorithm, tsp_recexch_single_buffer and
 * sched_reduce_scatter_allgather. The pipelined variants with a chunk of 256
 * bytes (16 elements of this type) have the same fault once the count exceeds
 * one chunk: MPI_Iallreduce under tsp_tree (knomial_2, k = 3,
 * MPIR_CVAR_IALLREDUCE_TREE_PIPELINE_CHUNK_SIZE=256) and MPI_Ireduce under
 * tsp_tree (knomial_1, k = 3) and tsp_ring
 * (MPIR_CVAR_IREDUCE_RING_CHUNK_SIZE=256): 2 processes, count 16 right, 17
 * abort (glibc "munmap_chunk(): invalid pointer", SIGABRT), 32, 1000 and 65536
 * wrong values or SIGSEGV; in place or not; persistent too; with the op
 * declared noncommutative as well (MPI_Ireduce tsp_tree excepted: right);
 * contiguous(4,MPI_INT) right; without the chunk setting tsp_tree is right.
 * The elements do not overlap in memory, so the receive buffer is valid:
 * MPI-4.1 Section 6.9.1 (MPI-5.0 Section 6.9.1) makes overlapping datatypes
 * erroneous in receive buffers only, and an extent set below the true extent
 * with MPI_Type_create_resized is legal; MPI-4.1 Section 6.12 (MPI-5.0 Section
 * 6.12): MPI_Iallreduce delivers the result of MPI_Allreduce (Section 6.9.6).
 * ordo met it with the crossing check's interleaved datatype class (#39).
 *
 *   mpicc.mpich variant_iallreduce_interleaved_datatype_wrong_values.c -o repro
 *   mpiexec.mpich -n 2 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_IALLREDUCE_INTRA_ALGORITHM tsp_ring ./repro 2
 *   mpiexec.mpich -n 4 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_IALLREDUCE_INTRA_ALGORITHM \
 *       tsp_recexch_reduce_scatter_recexch_allgatherv ./repro 65536
 *   mpiexec.mpich -n 3 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_IALLREDUCE_INTRA_ALGORITHM tsp_ring ./repro 3
 *   mpiexec.mpich -n 2 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_IALLREDUCE_INTRA_ALGORITHM tsp_ring ./repro 65536 i
 *   mpiexec.mpich -n 2 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_IALLREDUCE_INTRA_ALGORITHM tsp_tree \
 *       -genv MPIR_CVAR_IALLREDUCE_TREE_TYPE knomial_2 \
 *       -genv MPIR_CVAR_IALLREDUCE_TREE_KVAL 3 \
 *       -genv MPIR_CVAR_IALLREDUCE_TREE_PIPELINE_CHUNK_SIZE 256 ./repro 17
 *   mpiexec.mpich -n 2 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_IREDUCE_INTRA_ALGORITHM tsp_ring \
 *       -genv MPIR_CVAR_IREDUCE_RING_CHUNK_SIZE 256 ./repro 1000 R
 *
 * Arguments: the count (default 2), then one word of letters (ip, not i p): i
 * for MPI_IN_PLACE (default a separate send buffer), P for the persistent form
 * (MPI_Allreduce_init, MPI_Start), R for MPI_Ireduce to root 0 (checked at the
 * root), n for a noncommutative op, p for the same blocks without the resize
 * (extent 48), c for contiguous(4,MPI_INT). Exits 0 when every element is the
 * sum of every process's contribution (computed here), 1 on a wrong value (the
 * first one printed per process), 2 after 30 s of hanging; a crash ends the
 * job (exit code 6 or 11, or the launcher's report of the signal). Without the
 * variables MPICH 4.0.2 passes. No upstream report found (searched
 * pmodels/mpich issues). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int layout = 'r'; /* r: interleaved, p: not resized, c: contiguous */

static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "hang: MPI_Iallreduce did not complete in 30 s\n";
  write(2, msg, sizeof msg - 1);
  _exit(2);
}

/* The int index of cell k (0..3) of element i. */
static long cell(long i, int k) {
  const long block = k < 2 ? k : 10 + (k - 2);
  if (layout == 'r') return 4 * i + block;
  if (layout == 'p') return 12 * i + block;
  return 4 * i + k;
}

/* The element-wise sum of the four ints of each element (wrapping). */
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

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long count = argc > 1 ? atol(argv[1]) : 2;
  const char* flags = argc > 2 ? argv[2] : "";
  const int in_place = strchr(flags, 'i') != NULL;
  const int commute = strchr(flags, 'n') == NULL;
  const int persistent = strchr(flags, 'P') != NULL;
  const int reduce = strchr(flags, 'R') != NULL; /* MPI_Ireduce to root 0 */
  if (strchr(flags, 'p')) layout = 'p';
  if (strchr(flags, 'c')) layout = 'c';

  MPI_Datatype type;
  if (layout == 'c') {
    MPI_Type_contiguous(4, MPI_INT, &type);
  } else {
    int lens[2] = {2, 2}, displs[2] = {0, 10};
    if (layout == 'p') {
      MPI_Type_indexed(2, lens, displs, MPI_INT, &type);
    } else {
      MPI_Datatype blocks;
      MPI_Type_indexed(2, lens, displs, MPI_INT, &blocks);
      MPI_Type_create_resized(blocks, 0, 16, &type);
      MPI_Type_free(&blocks);
    }
  }
  MPI_Type_commit(&type);
  MPI_Op op;
  MPI_Op_create(add, commute, &op);

  /* Buffers of exactly count elements' span: (count - 1) extents and one
   * true extent. */
  const long ints = count < 1       ? 1
                    : layout == 'r' ? 4 * (count - 1) + 12
                    : layout == 'p' ? 12 * count
                                    : 4 * count;
  unsigned* recv = calloc((size_t)ints, sizeof *recv);
  unsigned* send = calloc((size_t)ints, sizeof *send);
  unsigned* input = in_place ? recv : send;
  for (long i = 0; i < count; ++i)
    for (int k = 0; k < 4; ++k) input[cell(i, k)] = value(rank, i, k);

  signal(SIGALRM, on_alarm);
  alarm(30);
  MPI_Request req;
  const void* sendbuf = in_place ? MPI_IN_PLACE : send;
  if (reduce) {
    MPI_Ireduce(sendbuf, recv, (int)count, type, op, 0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  } else if (persistent) {
    MPI_Allreduce_init(sendbuf, recv, (int)count, type, op, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Request_free(&req);
  } else {
    MPI_Iallreduce(sendbuf, recv, (int)count, type, op, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  }
  alarm(0);

  int wrong = 0;
  for (long i = 0; i < count && !wrong && (!reduce || rank == 0); ++i)
    for (int k = 0; k < 4 && !wrong; ++k) {
      unsigned expected = 0;
      for (int r = 0; r < size; ++r) expected += value(r, i, k);
      if (recv[cell(i, k)] != expected) {
        wrong = 1;
        printf("rank %d: element %ld cell %d (byte %ld): expected %u, observed %u\n", rank, i, k,
               cell(i, k) * 4, expected, recv[cell(i, k)]);
      }
    }
  int any;
  MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("%s\n", any ? "wrong values" : "right");
  MPI_Op_free(&op);
  MPI_Type_free(&type);
  free(recv);
  free(send);
  MPI_Finalize();
  return any;
}
