/* Finding: MPICH's node-aware reduction gives wrong sums when rank 0 of the
 * communicator it reduces over is alone on its node while another node holds
 * several of its ranks, once the message is above 2048 bytes (513 ints; 512
 * pass). Every root is affected (the root takes the wrong sums). The same
 * fault reaches the intercommunicator collectives that first reduce within a
 * group (MPI_Allreduce, MPI_Reduce_scatter_block): their group's rank 0 alone
 * on its node suffices, even when the world's rank 0 is not.
 * With MPIR_CVAR_DEVICE_COLLECTIVES=none the sums are right; all ranks on one
 * node, or rank 0 sharing its node, also give right sums.
 * The path is the ch4 device's MPIDI_Reduce_intra_composition_alpha, which its
 * default selection takes for a commutative op above 2048 bytes (a
 * non-commutative op takes composition gamma: right values); forced through
 * MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE (ordo's
 * vendors/mpich/ch4-compositions/reduce-alpha.json) it is wrong at 512 ints
 * too, and compositions beta and gamma are right.
 * (MPI-4.1 Section 6.9.1: the root receives the element-wise reduction of
 * every process's send buffer; Section 6.9.6 for MPI_Allreduce, and on an
 * intercommunicator each group receives the reduction of the other group's
 * buffers.) Upstream: pmodels/mpich#6893 (the intracommunicator form).
 *
 * The nodes are virtual here: Hydra's host list places the ranks and MPICH
 * takes that node map from PMI; ordo's agent starts each host's proxy on this
 * machine instead of over ssh (on a cluster, place the ranks so on real nodes).
 *
 *   mpicc.mpich reduce_comm_rank0_alone_on_node_wrong_sums.c -o repro
 *   AGENT=vendors/launchers/virtual-node-agent.sh   (in an ordo checkout)
 *   L="-launcher ssh -launcher-exec $AGENT"
 *   MPI_Reduce on MPI_COMM_WORLD, rank 0 alone: wrong sums on 4.0.2
 *     mpiexec.mpich -hosts ordo-node0:1,ordo-node1:3 $L -n 4 ./repro reduce 513
 *   the same at 512 ints: right sums
 *     mpiexec.mpich -hosts ordo-node0:1,ordo-node1:3 $L -n 4 ./repro reduce 512
 *   rank 0 sharing its node: right sums
 *     mpiexec.mpich -hosts ordo-node0:2,ordo-node1:2 $L -n 4 ./repro reduce 513
 *   MPI_Allreduce on the intercommunicator {0} x {1,2,3}, whose second group
 *   has its rank 0 (world rank 1) alone on node 0: wrong sums on 4.0.2
 *     mpiexec.mpich -hosts ordo-node0:2,ordo-node1:2 $L -n 4 ./repro inter 1000
 *   the same with every rank on one node: right sums
 *     mpiexec.mpich -n 4 ./repro inter 1000
 *   composition alpha forced by a tuning file: wrong sums at 5 ints
 *     F=vendors/mpich/ch4-compositions/reduce-alpha.json
 *     mpiexec.mpich -genv MPIR_CVAR_DEVICE_COLLECTIVES all
 *       -genv MPIR_CVAR_CH4_COLL_SELECTION_TUNING_JSON_FILE $PWD/$F
 *       -hosts ordo-node0:1,ordo-node1:2 $L -n 3 ./repro reduce 5
 *
 * Exits 0 when every receiving rank has the right sums, 1 otherwise. Found by
 * ordo's placement runs (`ordo run --nodes 2 --placement first-alone`, and
 * --placement block for the intercommunicator). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check(const int* got, int n, int contributors_low, int contributors_high,
                 const char* what) {
  /* the sum over world ranks contributors_low..contributors_high of (w+1)*1000
   * + i */
  long base = 0;
  for (int w = contributors_low; w <= contributors_high; ++w) base += (long)(w + 1) * 1000;
  const int count = contributors_high - contributors_low + 1;
  for (int i = 0; i < n; ++i) {
    const long want = base + (long)count * i;
    if (got[i] != want) {
      printf("%s: element %d: expected %ld, got %d: wrong sums\n", what, i, want, got[i]);
      return 0;
    }
  }
  return 1;
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int inter = argc > 1 && strcmp(argv[1], "inter") == 0;
  const int n = argc > 2 ? atoi(argv[2]) : 513;
  int* send = malloc(sizeof(int) * (size_t)n);
  int* recv = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; ++i) send[i] = (rank + 1) * 1000 + i;
  int ok = 1;
  if (!inter) {
    const int root = size - 1;
    MPI_Reduce(send, recv, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
    if (rank == root) ok = check(recv, n, 0, size - 1, "MPI_Reduce at the last rank");
  } else {
    /* groups {0} and {1..size-1}: each receives the other's sums */
    MPI_Comm local, ic;
    const int low = rank == 0;
    MPI_Comm_split(MPI_COMM_WORLD, low ? 0 : 1, rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? 1 : 0, 7, &ic);
    MPI_Allreduce(send, recv, n, MPI_INT, MPI_SUM, ic);
    ok = low ? check(recv, n, 1, size - 1, "MPI_Allreduce, group {0}")
             : check(recv, n, 0, 0, "MPI_Allreduce, group {1..}");
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
  }
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) printf("%s\n", all ? "right sums" : "wrong sums");
  free(send);
  free(recv);
  MPI_Finalize();
  return all ? 0 : 1;
}
