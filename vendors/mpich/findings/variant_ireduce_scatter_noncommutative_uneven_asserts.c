/* Finding (algorithm variant mpich.ireduce_scatter.intra.sched_noncommutative
 * only): with MPIR_CVAR_IREDUCE_SCATTER_INTRA_ALGORITHM=sched_noncommutative,
 * MPI_Ireduce_scatter (MPI_SUM on MPI_INT) with recvcounts that differ
 * between processes, here {1, 2} on 2 processes, aborts inside the library:
 *   Assertion failed in file
 *   src/mpi/coll/ireduce_scatter/ireduce_scatter_intra_sched_noncommutative.c
 *   at line 56: recvcounts[i] == recvcounts[i + 1]
 * The persistent MPI_Reduce_scatter_init uses the same algorithm and fails
 * the same way. The algorithm only handles equal blocks; forced by the cvar,
 * with MPIR_CVAR_COLLECTIVE_FALLBACK=print, the library neither falls back
 * nor returns an error. Uneven recvcounts are valid MPI (MPI-4.1 Sections
 * 6.10.1 and 6.12.8), so a valid program ends with an internal assertion.
 *
 * MPICH reads the forcing variables at MPI_Init from the environment:
 *
 *   mpicc.mpich variant_ireduce_scatter_noncommutative_uneven_asserts.c -o repro
 *   mpiexec.mpich -n 2 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_IREDUCE_SCATTER_INTRA_ALGORITHM sched_noncommutative \
 *       -genv MPIR_CVAR_COLLECTIVE_FALLBACK print ./repro
 *
 * Exits 0 when every process receives its block of sums, 1 on a wrong
 * value, 2 after 30 s of hanging; the library's abort ends the job with a
 * non-zero code. Without the variables MPICH 4.0.2 passes. MPICH 4.2.1 and
 * 5.0.2 (measured 2026-11-28, -n 2, 3 runs each): the same abort, now
 * 'Assertion failed in file
 * src/mpi/coll/ireduce_scatter/ireduce_scatter_intra_sched_noncommutative.c at
 * line 46: recvcounts[i] == recvcounts[i + 1]', then a backtrace and
 * 'Abort(1) on node N: Internal error' (exit 1); at -n 3 4.2.1 falls back
 * with a message and passes. No upstream report found. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "hang: MPI_Ireduce_scatter did not complete in 30 s\n";
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
  /* recvcounts 1, 2, 1, 2, ... */
  int *counts = malloc(sizeof(int) * (size_t)size), total = 0;
  for (int i = 0; i < size; ++i) counts[i] = 1 + i % 2, total += counts[i];
  int *send = malloc(sizeof(int) * (size_t)total), recv[2] = {-1, -1};
  for (int k = 0; k < total; ++k) send[k] = 100 * k + rank;
  MPI_Request req;
  MPI_Ireduce_scatter(send, recv, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
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
