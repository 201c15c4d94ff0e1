/* Finding: MPICH 4.0.2's ch4 composition MPIDI_Scan_intra_composition_alpha,
 * when a tuning file selects it (MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE),
 * gives wrong prefixes, even MPI_SUM on MPI_INT, on a communicator whose ranks
 * interleave the nodes (a node's ranks are not consecutive). The composition
 * scans within each node and then adds the totals of the nodes of lower
 * ranks, which is a prefix only when every node holds a block of consecutive
 * ranks (src/mpid/ch4/src/ch4_coll_impl.h). The library's own selection
 * (maint/tuning/coll/ch4/generic.json) takes alpha only for such
 * communicators (is_node_consecutive=yes) and composition beta otherwise; no
 * check stops a tuning file from taking it for the others. Communicators
 * whose nodes hold consecutive ranks are right.
 * (MPI-4.1 Section 6.11.1: process i receives the reduction of the values of
 * processes 0, ..., i.)
 *
 * Two nodes are simulated on one machine: MPIR_CVAR_NUM_CLIQUES=2 with
 * MPIR_CVAR_CLIQUES_BY_BLOCK=1 makes {0,1} and {2,3} the nodes (4 processes).
 * The communicator is MPI_COMM_WORLD split with the order 0, 2, 1, 3: its
 * ranks 0 and 2 on the first node, 1 and 3 on the second.
 *
 *   mpicc.mpich ch4_scan_composition_alpha_interleaved_nodes.c -o repro
 *   F=vendors/mpich/ch4-compositions/scan-alpha.json   (in an ordo checkout)
 *   E="-genv MPIR_CVAR_DEVICE_COLLECTIVES all
 *      -genv MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE $F
 *      -genv MPIR_CVAR_NUM_CLIQUES 2 -genv MPIR_CVAR_CLIQUES_BY_BLOCK 1"
 *   interleaved: wrong prefixes on 4.0.2
 *     mpiexec.mpich $E -n 4 ./repro interleaved
 *   the nodes' ranks consecutive (the world's order): right
 *     mpiexec.mpich $E -n 4 ./repro consecutive
 *   interleaved under the library's own selection (no tuning file): right
 *     mpiexec.mpich -genv MPIR_CVAR_NUM_CLIQUES 2 -genv MPIR_CVAR_CLIQUES_BY_BLOCK 1 -n 4
 *       ./repro interleaved
 *
 * Exits 0 when every process has its prefix, 1 otherwise. Found by ordo's
 * variant sweep (`ordo run --vendor mpich --variants 'mpich.ch4.*' --nodes
 * 2`), on the intercommunicator merged back into an intracommunicator. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int wrank = 0, wsize = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
  MPI_Comm_size(MPI_COMM_WORLD, &wsize);
  const int interleaved = !(argc > 1 && strcmp(argv[1], "consecutive") == 0);
  /* interleaved: the even world ranks first, then the odd ones */
  const int key = interleaved ? (wrank % 2) * ((wsize + 1) / 2) + wrank / 2 : wrank;
  MPI_Comm comm;
  MPI_Comm_split(MPI_COMM_WORLD, 0, key, &comm);
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  enum { N = 8 };
  int mine[N], got[N];
  for (int i = 0; i < N; ++i) mine[i] = (rank + 1) * 100 + i;
  MPI_Scan(mine, got, N, MPI_INT, MPI_SUM, comm);
  int ok = 1;
  for (int i = 0; i < N && ok; ++i) {
    const int want = 100 * (rank + 1) * (rank + 2) / 2 + (rank + 1) * i;
    if (got[i] != want) {
      printf("comm rank %d (world rank %d): element %d: expected %d, got %d: wrong prefix\n", rank,
             wrank, i, want, got[i]);
      ok = 0;
    }
  }
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (wrank == 0)
    printf("%s communicator: %s\n", interleaved ? "interleaved" : "consecutive",
           all ? "every prefix right" : "wrong prefixes");
  MPI_Comm_free(&comm);
  MPI_Finalize();
  return all ? 0 : 1;
}
