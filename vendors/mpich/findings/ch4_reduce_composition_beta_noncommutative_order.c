/* Finding: MPICH 4.0.2's ch4 composition MPIDI_Reduce_intra_composition_beta,
 * when a tuning file selects it (MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE),
 * applies a non-commutative user op out of rank order whenever the root's node
 * holds several ranks and is not the node of the highest ranks. The other
 * nodes reduce first and the root's node leader joins that reduction with its
 * own value only; the rest of the root's node is folded in last, after the
 * nodes of higher ranks (src/mpid/ch4/src/ch4_coll_impl.h). A root alone on
 * its node, or on the last node, gets the right result, and so does a
 * commutative op. The library's own selection (maint/tuning/coll/ch4/
 * generic.json) takes beta only for commutative ops (is_commutative=yes); no
 * check stops a tuning file from taking it for others. MPICH 4.1's
 * MPIR_CVAR_REDUCE_COMPOSITION falls back from beta for a non-commutative op
 * (MPII_COLLECTIVE_FALLBACK_CHECK in src/mpid/ch4/src/ch4_coll.h); the tuning
 * file path there has no such check.
 * (MPI-4.1 Section 6.9.5: with a non-commutative op the reduction is applied
 * in ascending rank order.)
 *
 * Two nodes are simulated on one machine: MPIR_CVAR_NUM_CLIQUES=2 with
 * MPIR_CVAR_CLIQUES_BY_BLOCK=1 splits the processes into the blocks {0,1}
 * and {2} (3 processes), which MPICH then treats as nodes.
 *
 *   mpicc.mpich ch4_reduce_composition_beta_noncommutative_order.c -o repro
 *   F=vendors/mpich/ch4-compositions/reduce-beta.json   (in an ordo checkout)
 *   E="-genv MPIR_CVAR_DEVICE_COLLECTIVES all
 *      -genv MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE $F
 *      -genv MPIR_CVAR_NUM_CLIQUES 2 -genv MPIR_CVAR_CLIQUES_BY_BLOCK 1"
 *   root 0 or 1, on node {0,1}: wrong order on 4.0.2
 *     mpiexec.mpich $E -n 3 ./repro 0
 *   root 2, alone on the last node: right
 *     mpiexec.mpich $E -n 3 ./repro 2
 *   root 0 under the library's own selection (no tuning file): right
 *     mpiexec.mpich -genv MPIR_CVAR_NUM_CLIQUES 2 -genv MPIR_CVAR_CLIQUES_BY_BLOCK 1 -n 3 ./repro 0
 *
 * The op composes affine maps x -> a*x + b (stored as a, b): associative, not
 * commutative. Exits 0 when the root has the rank-ordered composition, 1
 * otherwise. Found by ordo's variant sweep (`ordo run --vendor mpich
 * --variants 'mpich.ch4.*' --nodes 2`). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* invec is the lower-ranked operand: inout = in o inout (apply in, then inout) */
static void compose(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  const long* a = in;
  long* b = inout;
  for (int i = 0; i < *len; ++i) {
    const long a1 = a[2 * i], b1 = a[2 * i + 1], a2 = b[2 * i], b2 = b[2 * i + 1];
    b[2 * i] = (a2 * a1) % 1000003;
    b[2 * i + 1] = (a2 * b1 + b2) % 1000003;
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int root = argc > 1 ? atoi(argv[1]) : 0;
  MPI_Datatype map;
  MPI_Type_contiguous(2, MPI_LONG, &map);
  MPI_Type_commit(&map);
  MPI_Op op;
  MPI_Op_create(compose, 0, &op);
  long mine[2] = {rank + 2, 3 * rank + 1}, got[2] = {0, 0};
  MPI_Reduce(mine, got, 1, map, op, root, MPI_COMM_WORLD);
  int ok = 1;
  if (rank == root) {
    long want[2] = {2, 1}; /* rank 0's map */
    for (int r = 1; r < size; ++r) {
      long next[2] = {r + 2, 3 * r + 1};
      int one = 1;
      compose(want, next, &one, &map);
      want[0] = next[0];
      want[1] = next[1];
    }
    ok = got[0] == want[0] && got[1] == want[1];
    printf("root %d: expected (%ld, %ld), got (%ld, %ld): %s\n", root, want[0], want[1], got[0],
           got[1], ok ? "rank order" : "wrong order");
  }
  MPI_Bcast(&ok, 1, MPI_INT, root, MPI_COMM_WORLD);
  MPI_Op_free(&op);
  MPI_Type_free(&map);
  MPI_Finalize();
  return ok ? 0 : 1;
}
