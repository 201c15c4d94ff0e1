/* Finding: MPI_MAX and MPI_MIN on MPI_UNSIGNED_LONG compare the values as
 * signed long (MPI-4.1 Section 6.9.2: MAX/MIN on the C integer group).
 *
 *   mpicc.openmpi unsigned_long_max_min.c -o repro && ./repro
 *
 * Exits 0 when both results are right, 1 otherwise. Open MPI 4.1.4:
 * min(ULONG_MAX, 0) gives ULONG_MAX. Upstream: open-mpi/ompi#10525, fixed in
 * main by open-mpi/ompi#10527 (4.1.x backport: open-mpi/ompi#10538). */
#include <limits.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int bad = 0;
  MPI_Init(&argc, &argv);
  unsigned long in = ULONG_MAX, inout = 0;
  MPI_Reduce_local(&in, &inout, 1, MPI_UNSIGNED_LONG, MPI_MIN);
  if (inout != 0) {
    printf("MPI_MIN(MPI_UNSIGNED_LONG): ULONG_MAX and 0 gave %lu, expected 0\n", inout);
    bad = 1;
  }
  in = ULONG_MAX;
  inout = 1;
  MPI_Reduce_local(&in, &inout, 1, MPI_UNSIGNED_LONG, MPI_MAX);
  if (inout != ULONG_MAX) {
    printf("MPI_MAX(MPI_UNSIGNED_LONG): ULONG_MAX and 1 gave %lu, expected ULONG_MAX\n", inout);
    bad = 1;
  }
  if (!bad) printf("MPI_UNSIGNED_LONG MAX/MIN are right\n");
  MPI_Finalize();
  return bad;
}
