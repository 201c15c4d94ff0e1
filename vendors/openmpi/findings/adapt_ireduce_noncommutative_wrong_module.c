/* Finding: with coll/adapt providing MPI_Ireduce (coll_adapt_priority 100),
 * Open MPI 4.1.4's MPI_Ireduce with a non-commutative user op corrupts
 * memory at MPI_THREAD_MULTIPLE: the process aborts in glibc's mutex code
 * (`__pthread_tpp_change_priority: Assertion ... failed`, or `__owner == 0`)
 * or the call never completes.
 *
 * Cause (read in the library's source, tag v4.1.4,
 * ompi/mca/coll/adapt/coll_adapt_ireduce.c, ompi_coll_adapt_ireduce): adapt
 * does not handle a non-commutative op and falls back to the previous
 * component's ireduce (libnbc), but passes it the module of the previous
 * *reduce* (coll/tuned's) instead of the previous ireduce's module. libnbc
 * then uses tuned's module as its own: under MPI_THREAD_MULTIPLE it locks a
 * "mutex" and writes a field at offsets that, in tuned's module, lie in its
 * forced-algorithm table, whose bytes tuned never initialised. What happens
 * follows the heap's old contents; MALLOC_PERTURB_ makes it deterministic.
 * MPI_Reduce's fallback (coll_adapt_reduce.c) passes the right module. The
 * main branch has the same line (8efebee745, 2026-08-21); the fix is to pass
 * the previous ireduce's module.
 *
 *   mpicc.openmpi adapt_ireduce_noncommutative_wrong_module.c -o repro -lpthread
 *   mpiexec.openmpi --allow-run-as-root --oversubscribe \
 *     -x MALLOC_PERTURB_=191 \
 *     -x OMPI_MCA_coll_adapt_priority=100 \
 *     -x OMPI_MCA_coll_adapt_reduce_algorithm=1 -n 3 ./repro
 *
 * Arguments (optional): commute (0: the op is declared non-commutative, the
 * default; 1: commutative), and the thread level asked for (3:
 * MPI_THREAD_MULTIPLE, the default; 0: MPI_THREAD_SINGLE).
 *
 * Measured with this program at 3 processes (2026-11-26, Open MPI 4.1.4):
 * aborts with the tpp assertion in 2 of 2 runs as above; with
 * MALLOC_PERTURB_=127 and coll_adapt_reduce_algorithm 5 (chain) it hangs
 * (1 of 1). Completes: with commute 1 (3 of 3), at MPI_THREAD_SINGLE (1 of
 * 1), without coll_adapt_priority (2 of 2), and with
 * coll_tuned_use_dynamic_rules 1 (3 of 3: tuned then fills that table; it
 * hides the fault, it does not fix it). One thread is enough; ordo's threads
 * check meets it with four threads on communicators of their own.
 * Exits 0 when every result is the product in rank order (with commute 0),
 * 1 otherwise. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { kElems = 64, kRounds = 200 };

/* Each element is a 2x2 matrix of unsigned 32-bit integers (4 x
 * MPI_UNSIGNED); inoutvec := invec x inoutvec, the matrix product:
 * associative, not commutative. */
static void combine(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  const unsigned* a = in;
  unsigned* b = inout;
  for (int e = 0; e < *len; e++, a += 4, b += 4) {
    const unsigned p0 = a[0] * b[0] + a[1] * b[2], p1 = a[0] * b[1] + a[1] * b[3];
    const unsigned p2 = a[2] * b[0] + a[3] * b[2], p3 = a[2] * b[1] + a[3] * b[3];
    b[0] = p0, b[1] = p1, b[2] = p2, b[3] = p3;
  }
}

static void input(unsigned* m, int rank, int element, int round) {
  m[0] = 1u + (unsigned)rank, m[1] = (unsigned)(element + round), m[2] = 2u * (unsigned)rank,
  m[3] = 3u + (unsigned)(element ^ rank);
}

int main(int argc, char** argv) {
  const int commute = argc > 1 ? atoi(argv[1]) : 0;
  const int level = argc > 2 ? atoi(argv[2]) : MPI_THREAD_MULTIPLE;
  int provided = 0, rank = 0, size = 0, bad = 0;
  MPI_Init_thread(&argc, &argv, level, &provided);
  if (provided < level) {
    fprintf(stderr, "the library provides thread level %d, not %d\n", provided, level);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Datatype four;
  MPI_Type_contiguous(4, MPI_UNSIGNED, &four);
  MPI_Type_commit(&four);
  MPI_Op op;
  MPI_Op_create(combine, commute, &op);
  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  unsigned send[kElems * 4], recv[kElems * 4];
  for (int round = 0; round < kRounds; round++) {
    for (int e = 0; e < kElems; e++) input(send + 4 * e, rank, e, round);
    MPI_Request request;
    MPI_Ireduce(send, recv, kElems, four, op, size - 1, comm, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
    if (rank == size - 1 && !commute) { /* a commutative op may be applied in any order */
      for (int e = 0; e < kElems; e++) {
        unsigned expect[4], next[4];
        input(expect, 0, e, round);
        for (int r = 1; r < size; r++) { /* x0 x x1 x ... in rank order */
          int one = 1;
          input(next, r, e, round);
          combine(expect, next, &one, NULL);
          for (int k = 0; k < 4; k++) expect[k] = next[k];
        }
        for (int k = 0; k < 4; k++) bad |= recv[4 * e + k] != expect[k];
      }
    }
  }
  if (rank == size - 1)
    printf("%s\n", commute ? "completed (commutative: no order to check)"
                   : bad   ? "wrong result"
                           : "right result");
  MPI_Comm_free(&comm);
  MPI_Op_free(&op);
  MPI_Type_free(&four);
  MPI_Finalize();
  return bad;
}
