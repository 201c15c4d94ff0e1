/* Finding (algorithm variant mpich.iallreduce.intra.tsp_recexch_single_buffer.k3
 * only): MPI_Iallreduce with MPI_SUM on MPI_DOUBLE over 3 processes gives
 * the processes different results: each process adds the contributions in
 * its own order, so with floating point the sums differ in the last bits
 * or more. MPI-4.1 Section 6.9.6: "MPI requires that all processes from
 * the same group participating in these operations receive identical
 * results" (Section 6.9.1 lets the library reorder a commutative op, not
 * give each process a different reduction). ordo's clause
 * allreduce.identical-results (MUST) checks this bit for bit.
 *
 * The inputs are chosen so that the order is visible: 1e16, 1.0 and -1e16
 * sum to 0 or 1 depending on which pair is added first; any one value is
 * acceptable, different values on different processes are not.
 *
 * MPICH reads the forcing variables at MPI_Init from the environment:
 *
 *   mpicc.mpich variant_iallreduce_recexch_k3_results_differ_across_ranks.c -o repro
 *   mpiexec.mpich -n 3 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_IALLREDUCE_INTRA_ALGORITHM tsp_recexch_single_buffer \
 *       -genv MPIR_CVAR_IALLREDUCE_RECEXCH_KVAL 3 \
 *       -genv MPIR_CVAR_COLLECTIVE_FALLBACK print ./repro
 *
 * Exits 0 when every process received bit-identical results, 1 otherwise,
 * 2 after 30 s of hanging. Without the variables MPICH 4.0.2 passes. No
 * upstream issue found; pmodels/mpich#6538 (test/coll: add test
 * allred_float) describes the cause in the recexch algorithms: each rank
 * reduces its k-group with a different association. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "hang: MPI_Iallreduce did not complete in 30 s\n";
  write(2, msg, sizeof msg - 1);
  _exit(2);
}

int main(int argc, char** argv) {
  signal(SIGALRM, on_alarm);
  alarm(30);
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* Element j: ranks contribute 1e16, 1, -1e16, 1e16, 1, ... rotated by j,
   * so every placement of the large values is tried. */
  enum { N = 3 };
  const double pattern[3] = {1e16, 1.0, -1e16};
  double send[N], recv[N];
  for (int j = 0; j < N; ++j) send[j] = pattern[(rank + j) % 3], recv[j] = -99.0;
  MPI_Request req;
  MPI_Iallreduce(send, recv, N, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  double* all = malloc(sizeof(double) * N * (size_t)size);
  MPI_Allgather(recv, N, MPI_DOUBLE, all, N, MPI_DOUBLE, MPI_COMM_WORLD);
  int ok = 1;
  if (rank == 0) {
    for (int r = 0; r < size; ++r) {
      printf("rank %d received:", r);
      for (int j = 0; j < N; ++j) printf(" %g", all[N * r + j]);
      printf("\n");
    }
    for (int r = 1; r < size; ++r)
      for (int j = 0; j < N; ++j)
        if (memcmp(&all[N * r + j], &all[j], sizeof(double)) != 0) {
          printf(
              "element %d: expected rank %d to receive rank 0's result %g (bit-identical), got "
              "%g\n",
              j, r, all[j], all[N * r + j]);
          ok = 0;
        }
    if (ok) printf("every rank received bit-identical results\n");
  }
  MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  free(all);
  MPI_Finalize();
  return ok ? 0 : 1;
}
