/* Finding (algorithm variant mpich.reduce_scatter.intra.noncommutative only):
 * with MPIR_CVAR_REDUCE_SCATTER_INTRA_ALGORITHM=noncommutative, a plain
 * MPI_Reduce_scatter (MPI_SUM on MPI_INT, one int per process) aborts inside
 * the library at any process count that is not a power of two:
 *   Assertion failed in file
 *   src/mpi/coll/reduce_scatter/reduce_scatter_intra_noncommutative.c
 *   at line 55: pof2 == comm_size
 * and, at a power-of-two count, as soon as the recvcounts differ
 * ("uneven" argument):
 *   ... at line 58: recvcounts[i] == recvcounts[i + 1]
 * The algorithm is documented as restricted to power-of-two sizes and equal
 * blocks, and MPICH's own automatic selection only picks it then; forced by
 * the cvar, with MPIR_CVAR_COLLECTIVE_FALLBACK=print (fall back, with a
 * message, when the forced algorithm cannot be applied), the library
 * neither falls back nor returns an error: the process aborts. The call is
 * valid MPI (MPI-4.1 Section 6.10.1: any recvcounts, any group size), so a
 * valid program ends with an internal assertion.
 *
 * MPICH reads the forcing variables at MPI_Init from the environment:
 *
 *   mpicc.mpich variant_reduce_scatter_noncommutative_asserts.c -o repro
 *   mpiexec.mpich -n 3 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_REDUCE_SCATTER_INTRA_ALGORITHM noncommutative \
 *       -genv MPIR_CVAR_COLLECTIVE_FALLBACK print ./repro
 *   (or -n 2 ... ./repro uneven, for recvcounts {1, 2})
 *
 * Exits 0 when every process receives its block of sums, 1 on a wrong
 * value, 2 after 30 s of hanging; the library's abort ends the job with a
 * non-zero code (mpiexec.mpich reported 9 at -n 3, 1 at -n 2). Without the variables MPICH 4.0.2
 * passes. MPICH 4.2.1 and 5.0.2 (measured 2026-11-28, 3 runs each): the same
 * aborts, now 'Assertion failed in file ... reduce_scatter_intra_noncommutative.c
 * at line 45: MPL_is_pof2(comm_size)' (4.2.1: -n 3, 5, 6, 7) and '... at line
 * 48: recvcounts[i] == recvcounts[i + 1]' (-n 2, 4, 8 uneven), each followed
 * by a backtrace and 'Abort(1) on node N: Internal error'; exit 1, 9 or 0
 * (Hydra); equal blocks at -n 1, 2, 4, 8 pass. No upstream report found. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "hang: MPI_Reduce_scatter did not complete in 30 s\n";
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
  const int uneven = argc > 1 && strcmp(argv[1], "uneven") == 0;
  /* recvcounts: 1 each, or 1, 2, 1, 2, ... with "uneven". */
  int *counts = malloc(sizeof(int) * (size_t)size), total = 0;
  for (int i = 0; i < size; ++i) counts[i] = uneven ? 1 + i % 2 : 1, total += counts[i];
  int *send = malloc(sizeof(int) * (size_t)total), recv[2] = {-1, -1};
  for (int k = 0; k < total; ++k) send[k] = 100 * k + rank;
  MPI_Reduce_scatter(send, recv, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int first = 0;
  for (int i = 0; i < rank; ++i) first += counts[i];
  int ok = 1;
  for (int j = 0; j < counts[rank]; ++j) {
    const int k = first + j, want = size * 100 * k + size * (size - 1) / 2;
    if (recv[j] != want) {
      printf("rank %d element %d: expected %d, got %d\n", rank, j, want, recv[j]);
      ok = 0;
    }
  }
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0 && all) printf("every process received its block of sums\n");
  free(send);
  free(counts);
  MPI_Finalize();
  return all ? 0 : 1;
}
