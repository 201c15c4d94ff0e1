/* Finding: MPI_MAX and MPI_MIN on MPI_OFFSET (a signed integer type of the
 * Multi-language group, MPI-4.1 Section 6.9.2) compare negative values as
 * if they were unsigned.
 *
 *   mpicc.openmpi offset_max_min_compare_as_unsigned.c -o repro && ./repro
 *
 * Exits 0 when max(-5, 3) is 3 and min(-5, 3) is -5, 1 otherwise. Open MPI
 * 4.1.4 gives -5 and 3. No upstream report found for MPI_OFFSET (the same
 * class as open-mpi/ompi#10525 for MPI_UNSIGNED_LONG). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int bad = 0;
  MPI_Init(&argc, &argv);
  MPI_Offset in = -5, inout = 3;
  MPI_Reduce_local(&in, &inout, 1, MPI_OFFSET, MPI_MAX);
  if (inout != 3)
    printf("MPI_MAX(MPI_OFFSET): -5 and 3 gave %lld, expected 3\n", (long long)inout), bad = 1;
  in = -5, inout = 3;
  MPI_Reduce_local(&in, &inout, 1, MPI_OFFSET, MPI_MIN);
  if (inout != -5)
    printf("MPI_MIN(MPI_OFFSET): -5 and 3 gave %lld, expected -5\n", (long long)inout), bad = 1;
  if (!bad) printf("MPI_OFFSET MAX/MIN are right\n");
  MPI_Finalize();
  return bad;
}
