/* Finding: MPI_MAX and MPI_MIN on unsigned integer types compare the values
 * as signed (MPI-4.1 Section 6.9.2: MAX/MIN are defined on the C integer
 * group, unsigned types included, by their values).
 *
 *   mpicc.mpich unsigned_max_min_compare_as_signed.c -o repro && ./repro
 *
 * Exits 0 when every result is right, 1 otherwise (prints each wrong one).
 * MPICH 4.0.2: max(162, 1) on MPI_UNSIGNED_CHAR gives 1, min(ULLONG_MAX, 5)
 * on MPI_UNSIGNED_LONG_LONG gives ULLONG_MAX. Upstream: pmodels/mpich#6083,
 * fixed by pmodels/mpich#6085. */
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

static int bad = 0;

#define CHECK(T, MPIT, OP, A, B, WANT)                                                    \
  do {                                                                                    \
    T in = (A), inout = (B);                                                              \
    MPI_Reduce_local(&in, &inout, 1, MPIT, OP);                                           \
    if (inout != (T)(WANT)) {                                                             \
      printf("%s(%s): %llu and %llu gave %llu, expected %llu\n", #OP, #MPIT,              \
             (unsigned long long)(A), (unsigned long long)(B), (unsigned long long)inout, \
             (unsigned long long)(WANT));                                                 \
      bad = 1;                                                                            \
    }                                                                                     \
  } while (0)

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  CHECK(unsigned char, MPI_UNSIGNED_CHAR, MPI_MAX, 162, 1, 162);
  CHECK(uint8_t, MPI_UINT8_T, MPI_MIN, 200, 3, 3);
  CHECK(unsigned short, MPI_UNSIGNED_SHORT, MPI_MAX, 59049, 10960, 59049);
  CHECK(unsigned, MPI_UNSIGNED, MPI_MAX, 3000000000u, 7u, 3000000000u);
  CHECK(unsigned long, MPI_UNSIGNED_LONG, MPI_MIN, ULONG_MAX, 0, 0);
  CHECK(unsigned long long, MPI_UNSIGNED_LONG_LONG, MPI_MIN, ULLONG_MAX, 5, 5);
  CHECK(uint64_t, MPI_UINT64_T, MPI_MAX, UINT64_MAX, 1, UINT64_MAX);
  if (!bad) printf("all unsigned MAX/MIN results are right\n");
  MPI_Finalize();
  return bad;
}
