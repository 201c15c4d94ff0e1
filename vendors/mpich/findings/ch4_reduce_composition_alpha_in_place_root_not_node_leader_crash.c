/* Finding: MPICH 4.0.2's ch4 composition MPIDI_Reduce_intra_composition_alpha,
 * when a tuning file selects it (MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE),
 * crashes (SIGSEGV) in MPI_Reduce with MPI_IN_PLACE when the root is not the
 * lowest rank of the communicator on its node. The composition first reduces
 * within each node to the node's lowest rank and passes the root's sendbuf
 * there unchanged: the root then takes part as a non-root with sendbuf =
 * MPI_IN_PLACE, which is read as data (src/mpid/ch4/src/ch4_coll_impl.h).
 * Root 0, and a root that is the lowest rank on its node, are right; so is the
 * library's own selection (maint/tuning/coll/ch4/generic.json), which also
 * takes alpha for commutative ops above 2048 bytes: that path has its own
 * fault (reduce_comm_rank0_alone_on_node_wrong_sums.c) but not this one.
 * Upstream: pmodels/mpich#6540 (its default-selection form, above 2048
 * bytes on one node), fixed in 4.2.0 (commits c46c5f2 and db1091f: the
 * node-local stage sends from recvbuf at a process other than its node's
 * first).
 * (MPI-4.1 Section 6.9.1: at the root, MPI_IN_PLACE takes the input from the
 * receive buffer and the result replaces it.)
 *
 * Two nodes are simulated on one machine: MPIR_CVAR_NUM_CLIQUES=2 with
 * MPIR_CVAR_CLIQUES_BY_BLOCK=1 splits the processes into the blocks {0,1}
 * and {2} (3 processes), which MPICH then treats as nodes.
 *
 *   mpicc.mpich ch4_reduce_composition_alpha_in_place_root_not_node_leader_crash.c -o repro
 *   F=vendors/mpich/ch4-compositions/reduce-alpha.json   (in an ordo checkout)
 *   E="-genv MPIR_CVAR_DEVICE_COLLECTIVES all
 *      -genv MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE $F
 *      -genv MPIR_CVAR_NUM_CLIQUES 2 -genv MPIR_CVAR_CLIQUES_BY_BLOCK 1"
 *   root 1, second rank of node {0,1}: SIGSEGV on 4.0.2
 *     mpiexec.mpich $E -n 3 ./repro 1
 *   root 2, alone on node {2}, and root 0: right
 *     mpiexec.mpich $E -n 3 ./repro 2
 *     mpiexec.mpich $E -n 3 ./repro 0
 *   root 1 under the library's own selection (no tuning file): right
 *     mpiexec.mpich -genv MPIR_CVAR_NUM_CLIQUES 2 -genv MPIR_CVAR_CLIQUES_BY_BLOCK 1 -n 3 ./repro 1
 *
 * Exits 0 when the root has the right sums, 1 otherwise (a crash ends the job).
 * Found by ordo's variant sweep (`ordo run --vendor mpich --variants
 * 'mpich.ch4.*' --nodes 2`). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int root = argc > 1 ? atoi(argv[1]) : 1;
  enum { N = 4 };
  int buf[N];
  for (int i = 0; i < N; ++i) buf[i] = (rank + 1) * 100 + i;
  if (rank == root)
    MPI_Reduce(MPI_IN_PLACE, buf, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
  else
    MPI_Reduce(buf, NULL, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
  int ok = 1;
  if (rank == root) {
    for (int i = 0; i < N; ++i) {
      const int want = 100 * size * (size + 1) / 2 + size * i;
      if (buf[i] != want) {
        printf("root %d: element %d: expected %d, got %d: wrong sums\n", root, i, want, buf[i]);
        ok = 0;
        break;
      }
    }
    if (ok) printf("root %d: right sums\n", root);
  }
  MPI_Bcast(&ok, 1, MPI_INT, root, MPI_COMM_WORLD);
  MPI_Finalize();
  return ok ? 0 : 1;
}
