/* Finding: MPI_SUM on MPI_UNSIGNED_CHAR / MPI_UINT8_T (and the 16-bit
 * unsigned types) saturates at the type's maximum for vectorised counts
 * instead of wrapping modulo 2^n (MPI-4.1 Section 6.9.2: SUM on the C
 * integer group is the C sum of the values; unsigned arithmetic wraps).
 *
 *   mpicc.openmpi unsigned_small_sum_saturates.c -o repro && ./repro
 *
 * Exits 0 when 200 + 100 gives 44 on every element, 1 otherwise. Open MPI
 * 4.1.4 (op/avx component): 255 for counts of 32 and more, 44 below.
 * Upstream: open-mpi/ompi#8045 (closed "wontfix"); see also the discussion
 * in open-mpi/ompi#7419. Excluding the component (OMPI_MCA_op=^avx) is the
 * library's own way around it. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int bad = 0;
  MPI_Init(&argc, &argv);
  for (int count = 1; count <= 64; count *= 2) {
    unsigned char in[64], inout[64];
    for (int i = 0; i < count; ++i) in[i] = 200, inout[i] = 100;
    MPI_Reduce_local(in, inout, count, MPI_UNSIGNED_CHAR, MPI_SUM);
    for (int i = 0; i < count; ++i)
      if (inout[i] != 44) {
        printf("count %d element %d: 200 + 100 gave %d, expected 44 (mod 256)\n", count, i,
               inout[i]);
        bad = 1;
        break;
      }
  }
  if (!bad) printf("unsigned char sums wrap as they must\n");
  MPI_Finalize();
  return bad;
}
