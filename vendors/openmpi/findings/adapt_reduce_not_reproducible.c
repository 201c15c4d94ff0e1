/* Finding (SHOULD): under coll_adapt's reduce (coll_adapt_priority 100,
 * coll_adapt_reduce_algorithm 1 binomial or 2 in_order_binomial), Open MPI
 * 4.1.4's MPI_Reduce with MPI_SUM on floating-point data gives different
 * results for the same call with the same arguments on the same processes:
 * the adapt component combines the segments of the children in the order
 * they arrive. MPI-4.1 6.9.1 advises that a reduction give the same result
 * whenever it is applied to the same arguments in the same order; the
 * library's own choice does.
 *
 *   mpicc.openmpi adapt_reduce_not_reproducible.c -o repro
 *   mpiexec.openmpi --allow-run-as-root --oversubscribe \
 *     --mca coll_adapt_priority 100 --mca coll_adapt_reduce_algorithm 1 \
 *     -n 4 ./repro [count [repeats [root]]]
 *
 * count: doubles per process (70000 by default); repeats: calls (20); root
 * (0). Exits 0 when every call gives the root the bits of the first, 1
 * otherwise. Measured on 4.1.4: binomial 5 of 19 calls differ at 5
 * processes, 19 at 8, none at 3 and 4; in_order_binomial 19 of 19 at 4; the
 * library's own choice none. 2026-11-28, ordo's roots, 19 repeats at root 0
 * and at the last rank, 3-8 processes: Open MPI 6.0.0rc2 (Debian unstable)
 * differs under binomial at 3 (2 of 19, root 0) and 4-8, in_order_binomial
 * at 4-8 (both roots), binary (3), chain (5) and linear (6) at 3-8 (at one
 * root at least); Debian 13's 5.0.7 under binomial at 3 and 5-8,
 * in_order_binomial at 4-8, binary at 3 and 6-8, chain and linear at 3-8;
 * pipeline (4) never differs on either; count 7 (200 calls) differs on
 * 6.0.0rc2 at 6-8 processes; the library's own choice never differs (4 and
 * 8 processes, last rank).
 * Upstream: none found. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int count = argc > 1 ? atoi(argv[1]) : 70000;
  const int repeats = argc > 2 ? atoi(argv[2]) : 20;
  const int root = argc > 3 ? atoi(argv[3]) : 0;
  double* send = malloc(sizeof(double) * count);
  double* first = malloc(sizeof(double) * count);
  double* again = malloc(sizeof(double) * count);
  /* Values of very different magnitudes, so that the order of the
   * additions shows in the rounding. */
  unsigned state = 12345u + 7919u * (unsigned)rank;
  for (int i = 0; i < count; i++) {
    state = state * 1103515245u + 12345u;
    send[i] = ((double)(state >> 8) / 16777216.0 - 0.5) * (i % 3 == 0 ? 1e16 : 1.0);
  }
  MPI_Reduce(send, first, count, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
  int differ = 0;
  for (int k = 1; k < repeats; k++) {
    MPI_Reduce(send, again, count, MPI_DOUBLE, MPI_SUM, root, MPI_COMM_WORLD);
    if (rank == root && memcmp(first, again, sizeof(double) * count) != 0) differ++;
  }
  if (rank == root)
    printf("%d of %d repeated calls gave the root a result other than the first call's\n", differ,
           repeats - 1);
  int any = 0;
  MPI_Allreduce(&differ, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  free(send);
  free(first);
  free(again);
  MPI_Finalize();
  return any != 0;
}
