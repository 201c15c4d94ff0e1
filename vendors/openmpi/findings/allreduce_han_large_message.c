/* Finding: Open MPI 4.1.4's han component (selected with coll_han_priority
 * 100 on a communicator that spans nodes) writes into the send buffer of
 * MPI_Allreduce above 512 KiB (131073 ints; 131072 pass), and crashes
 * (SIGSEGV) in MPI_Allreduce and MPI_Reduce with MPI_IN_PLACE at that size.
 * MPI-4.1 Section 6.9.6: the send buffer is an input (IN argument): the
 * library must not change it; Section 6.9.1: MPI_IN_PLACE at the root (every
 * rank for MPI_Allreduce) takes the input from the receive buffer.
 *
 * Two virtual nodes on one machine: a hostfile of two host names with two
 * slots each, the rsh launcher's agent replaced by ordo's
 * vendors/launchers/virtual-node-agent.sh (it starts each host's orted
 * here), TCP on the loopback interface. On a cluster: two nodes, two ranks
 * each, --mca coll_han_priority 100.
 *
 *   mpicc.openmpi allreduce_han_large_message.c -o repro
 *   printf 'ordo-node0 slots=2\nordo-node1 slots=2\n' > hosts
 *   M="--hostfile hosts --map-by slot --mca plm_rsh_agent $AGENT \
 *      --mca btl_tcp_if_include lo --mca oob_tcp_if_include lo"
 *   mpiexec.openmpi $M --mca coll_han_priority 100 -n 4 ./repro send 131073
 *                                         (memory changed on 4.1.4)
 *   mpiexec.openmpi $M --mca coll_han_priority 100 -n 4 ./repro send 131072
 *                                         (right)
 *   mpiexec.openmpi $M --mca coll_han_priority 100 -n 4 ./repro inplace 16385
 *                                         (SIGSEGV on 4.1.4; 16384: right)
 *   mpiexec.openmpi $M -n 4 ./repro inplace 131073      (han not selected:
 * right)
 *   mpiexec.openmpi $M --mca coll_han_priority 100 -n 4 ./repro inplace-reduce 16385
 *                 (MPI_Reduce, MPI_IN_PLACE at root 0: SIGSEGV on 4.1.4, also
 *                  with --mca coll_han_reduce_low_module 1 (sm) or
 *                  --mca coll_han_reduce_up_module 1 (adapt); 16384 right;
 *                  right with --mca coll_han_use_simple_reduce 1)
 *
 * Exits 0 when the sums are right and no send buffer changed, 1 otherwise. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int inplace = argc > 1 && strcmp(argv[1], "inplace") == 0;
  const int inplace_reduce = argc > 1 && strcmp(argv[1], "inplace-reduce") == 0;
  const int n = argc > 2 ? atoi(argv[2]) : 131073;
  int* send = malloc(sizeof(int) * (size_t)n);
  int* copy = malloc(sizeof(int) * (size_t)n);
  int* recv = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; ++i) send[i] = copy[i] = rank + i % 1000;
  int ok = 1;
  if (inplace_reduce) {
    /* MPI_Reduce with MPI_IN_PLACE at root 0; the other ranks' results are
     * not significant (they are given their input as the expected value). */
    memcpy(recv, send, sizeof(int) * (size_t)n);
    MPI_Reduce(rank == 0 ? MPI_IN_PLACE : send, recv, n, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank != 0) memset(recv, 0, sizeof(int) * (size_t)n);
  } else if (inplace) {
    memcpy(recv, send, sizeof(int) * (size_t)n);
    MPI_Allreduce(MPI_IN_PLACE, recv, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  } else {
    MPI_Allreduce(send, recv, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    /* the send buffer, and the copy made of it before the call, must be as they
     * were */
    for (int i = 0; i < n && ok; ++i)
      if (send[i] != rank + i % 1000 || copy[i] != rank + i % 1000) {
        printf(
            "rank %d: memory the call must not write changed (element %d of "
            "the %s buffer)\n",
            rank, i, send[i] != rank + i % 1000 ? "send" : "next");
        ok = 0;
      }
  }
  for (int i = 0; i < n && ok && (!inplace_reduce || rank == 0); ++i) {
    const int want = size * (size - 1) / 2 + size * (i % 1000);
    if (recv[i] != want) {
      printf("rank %d: element %d: expected %d, got %d\n", rank, i, want, recv[i]);
      ok = 0;
    }
  }
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0) printf("%s\n", all ? "right" : "wrong");
  free(send);
  free(copy);
  free(recv);
  MPI_Finalize();
  return all ? 0 : 1;
}
