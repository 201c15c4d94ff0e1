/* Finding: forced collective algorithms of Open MPI combine a
 * non-commutative user op out of rank order (MPI-4.1 Section 6.9.5: for an
 * op created with commute = false, the reduction is applied in ascending
 * rank order). coll_tuned's dynamic rules, and libnbc's algorithm variables,
 * apply the forced algorithm without asking whether the op commutes; with the
 * library's own choice the result is right.
 *
 *   mpicc.openmpi tuned_forced_noncommutative_order.c -o repro
 *   mpiexec.openmpi --allow-run-as-root --oversubscribe \
 *     --mca coll_tuned_use_dynamic_rules 1 \
 *     --mca coll_tuned_reduce_algorithm 2 -n 2 ./repro reduce
 *   mpiexec.openmpi --allow-run-as-root --oversubscribe \
 *     --mca coll_libnbc_ireduce_algorithm 1 -n 2 ./repro ireduce 4 1
 *   mpiexec.openmpi --allow-run-as-root --oversubscribe \
 *     --mca coll_libnbc_ireduce_algorithm 1 -n 2 ./repro ireduce 4 0 in_place
 *   mpiexec.openmpi --allow-run-as-root --oversubscribe \
 *     --mca coll_libnbc_iallreduce_algorithm 1 -n 2 ./repro allreduce_init
 *   mpiexec.openmpi --allow-run-as-root --oversubscribe \
 *     --mca coll_tuned_use_dynamic_rules 1 \
 *     --mca coll_tuned_reduce_algorithm 8 -n 3 ./repro reduce 4 1
 *
 * Routines: reduce, allreduce, reduce_scatter, reduce_scatter_block, scan,
 * exscan (blocking: coll_tuned_<routine>_algorithm), and with a leading i
 * their nonblocking forms (ireduce, ...: coll_libnbc_i<routine>_algorithm);
 * reduce_init and allreduce_init: the persistent forms (MPI_Reduce_init,
 * MPI_Allreduce_init, started once; Open MPI 5 and 6 make them with libnbc,
 * so coll_libnbc_i<routine>_algorithm applies);
 * `ompi_info --param coll tuned --level 9` (or libnbc) lists the numbers.
 * Optional second argument: elements per process (per block in the
 * reduce-scatter routines), 4 by default; for reduce and ireduce a third,
 * the root (0 by default), and a fourth, in_place (MPI_IN_PLACE at the
 * root). Exits 0 when every process holds
 * the product in rank order, 1 otherwise. The op is the product of 2x2
 * matrices of unsigned 32-bit integers (associative, not commutative).
 *
 * Open MPI 4.1.4, measured at 2 to 4 processes: wrong under tuned reduce 2-5
 * (chain, pipeline, binary, binomial), allreduce 4-5 (ring, segmented_ring;
 * from as many elements as processes) and reduce_scatter 2-3
 * (recursive_halving, ring); libnbc ireduce 1 (chain) and 3 (rabenseifner)
 * at a root other than 0 or with MPI_IN_PLACE (root 0 with a separate send
 * buffer is right), iallreduce 1 (ring) and 3 (rabenseifner); right under the other algorithms and
 * the library's own choice. Upstream: open-mpi/ompi#7765 (tuned's dynamic rules have no
 * non-commutative check), open-mpi/ompi#8010 (reduce-scatter algorithms).
 *
 * Open MPI 5.0.7 (Debian 13) and 6.0.0rc2 (Debian unstable), measured at 2,
 * 3 and 4 processes with 4 elements (2026-11-28): the persistent forms are
 * wrong as the nonblocking ones in both releases: reduce_init under
 * coll_libnbc_ireduce_algorithm 1 and 3 at root 1 and with MPI_IN_PLACE at
 * root 0 (root 0 with a separate send buffer right), allreduce_init under
 * coll_libnbc_iallreduce_algorithm 1 and 3; both right under the library's
 * own choice. 6.0.0rc2 only, with coll_tuned_use_dynamic_rules 1: reduce 8
 * (knomial) is wrong at root 0 from 2 processes and at root 1 and the last
 * root from 3, in place or not (at 2 processes root 1 is right, in place or
 * not: its only child is rank 0), allreduce 7 (allgather_reduce) from 2
 * processes, both with 1 element too; blocking reduce and allreduce are
 * right under the library's own choice. 5.0.7 has neither algorithm
 * (ompi_info: reduce 1-7, allreduce 1-6) and is right given those numbers.
 * Found by the 6.0.0rc2 variant sweep. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  uint32_t a, b, c, d;
} mat;

static mat mul(mat x, mat y) {
  mat r = {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c,
           x.c * y.b + x.d * y.d};
  return r;
}

/* inoutvec = invec x inoutvec: invec is the lower-ranked operand. */
static void product(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  mat* x = in;
  mat* y = inout;
  for (int i = 0; i < *len; i++) y[i] = mul(x[i], y[i]);
}

static mat leaf(int rank, int element) {
  mat m = {2u * rank + 3u + element, rank + 1u, 3u * rank + 2u + 5u * element,
           (uint32_t)(rank * rank) + 7u};
  return m;
}

/* The product of the leaves of ranks first..last (inclusive) for element. */
static mat ordered(int first, int last, int element) {
  mat m = leaf(first, element);
  for (int r = first + 1; r <= last; r++) m = mul(m, leaf(r, element));
  return m;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* arg = argc > 1 ? argv[1] : "reduce";
  /* A leading i: the nonblocking form (MPI_Ireduce, ...), completed by
   * MPI_Wait. */
  const int nonblocking = arg[0] == 'i';
  /* A trailing _init: the persistent form (reduce_init, allreduce_init). */
  char base[64];
  snprintf(base, sizeof base, "%s", nonblocking ? arg + 1 : arg);
  const size_t len = strlen(base);
  const int persistent = !nonblocking && len > 5 && !strcmp(base + len - 5, "_init");
  if (persistent) base[len - 5] = '\0';
  const char* routine = base;
#if !(MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5))
  if (persistent) {
    if (rank == 0) printf("%s: this library has no persistent collectives\n", arg);
    MPI_Finalize();
    return 4;
  }
#endif
  MPI_Request req = MPI_REQUEST_NULL;
  const int n = argc > 2 ? atoi(argv[2]) : 4;
  /* reduce and ireduce only: the root (third argument, 0 by default) and
   * MPI_IN_PLACE at the root (a fourth argument "in_place"). */
  const int root = argc > 3 ? atoi(argv[3]) : 0;
  const int in_place = argc > 4 && !strcmp(argv[4], "in_place");
  MPI_Datatype type;
  MPI_Type_contiguous(4, MPI_UINT32_T, &type);
  MPI_Type_commit(&type);
  MPI_Op op;
  MPI_Op_create(product, 0, &op);

  const int scattering =
      !strcmp(routine, "reduce_scatter") || !strcmp(routine, "reduce_scatter_block");
  int* counts = malloc(sizeof(int) * size);
  int total = 0;
  for (int r = 0; r < size; r++) {
    /* Reduce_scatter: uneven blocks (n, n+1, n, ...). */
    counts[r] = !strcmp(routine, "reduce_scatter") ? n + r % 2 : n;
    total += counts[r];
  }
  const int sendcount = scattering ? total : n;
  mat* send = malloc(sizeof(mat) * sendcount);
  mat* recv = calloc(sendcount, sizeof(mat));
  for (int i = 0; i < sendcount; i++) send[i] = leaf(rank, i);

  /* Which element of the send vector each received element is, and the
   * ranks whose product it must be. */
  int first_element = 0, nrecv = n, lo = 0, hi = size - 1, check = 1;
  if (!strcmp(routine, "reduce")) {
    const void* from = send;
    if (in_place && rank == root) {
      memcpy(recv, send, sizeof(mat) * n);
      from = MPI_IN_PLACE;
    }
    if (nonblocking) MPI_Ireduce(from, recv, n, type, op, root, MPI_COMM_WORLD, &req);
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
    else if (persistent)
      MPI_Reduce_init(from, recv, n, type, op, root, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
#endif
    else
      MPI_Reduce(from, recv, n, type, op, root, MPI_COMM_WORLD);
    check = rank == root;
  } else if (!strcmp(routine, "allreduce")) {
    if (nonblocking) MPI_Iallreduce(send, recv, n, type, op, MPI_COMM_WORLD, &req);
#if MPI_VERSION >= 4 || (defined(OMPI_MAJOR_VERSION) && OMPI_MAJOR_VERSION >= 5)
    else if (persistent)
      MPI_Allreduce_init(send, recv, n, type, op, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
#endif
    else
      MPI_Allreduce(send, recv, n, type, op, MPI_COMM_WORLD);
  } else if (!strcmp(routine, "reduce_scatter")) {
    if (nonblocking)
      MPI_Ireduce_scatter(send, recv, counts, type, op, MPI_COMM_WORLD, &req);
    else
      MPI_Reduce_scatter(send, recv, counts, type, op, MPI_COMM_WORLD);
    for (int r = 0; r < rank; r++) first_element += counts[r];
    nrecv = counts[rank];
  } else if (!strcmp(routine, "reduce_scatter_block")) {
    if (nonblocking)
      MPI_Ireduce_scatter_block(send, recv, n, type, op, MPI_COMM_WORLD, &req);
    else
      MPI_Reduce_scatter_block(send, recv, n, type, op, MPI_COMM_WORLD);
    first_element = rank * n;
  } else if (!strcmp(routine, "scan")) {
    if (nonblocking)
      MPI_Iscan(send, recv, n, type, op, MPI_COMM_WORLD, &req);
    else
      MPI_Scan(send, recv, n, type, op, MPI_COMM_WORLD);
    hi = rank;
  } else if (!strcmp(routine, "exscan")) {
    if (nonblocking)
      MPI_Iexscan(send, recv, n, type, op, MPI_COMM_WORLD, &req);
    else
      MPI_Exscan(send, recv, n, type, op, MPI_COMM_WORLD);
    hi = rank - 1;
    check = rank > 0; /* rank 0's receive buffer is undefined */
  } else {
    if (rank == 0) fprintf(stderr, "unknown routine %s\n", routine);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (persistent && req != MPI_REQUEST_NULL) {
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Request_free(&req);
  }
  MPI_Wait(&req, MPI_STATUS_IGNORE);

  int bad = 0;
  for (int i = 0; check && i < nrecv && !bad; i++) {
    const mat want = ordered(lo, hi, first_element + i);
    const mat got = recv[i];
    if (memcmp(&want, &got, sizeof(mat)) != 0) {
      printf(
          "rank %d: %s element %d: got [%u %u; %u %u], the product in rank order "
          "%d..%d is [%u %u; %u %u]\n",
          rank, routine, i, got.a, got.b, got.c, got.d, lo, hi, want.a, want.b, want.c, want.d);
      bad = 1;
    }
  }
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && !any) printf("%s: every process holds the product in rank order\n", arg);
  MPI_Op_free(&op);
  MPI_Type_free(&type);
  free(counts);
  free(send);
  free(recv);
  MPI_Finalize();
  return any;
}
