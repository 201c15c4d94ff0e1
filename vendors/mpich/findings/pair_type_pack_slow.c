/* Finding (performance): MPICH 4.2.1 and 5.0.2 pack and unpack MPI_DOUBLE_INT,
 * MPI_LONG_INT and any struct of two basic types with a gap after the second
 * (struct {double, int}, extent 16, 12 bytes of data) 15-50 times slower
 * than 4.0.2: 35-135 ms for 65536 elements, against 1.5-2.6 ms, while a
 * vector of bytes of the same layout packs in 0.3-0.5 ms on all three.
 * Every transfer of such a type is that slow: a send/recv of 65528
 * MPI_DOUBLE_INT between two processes of one node took 80-85 ms (4.0.2:
 * 3-11 ms; MPI_DOUBLE of the same count 0.13 ms), and so does every
 * reduction with MPI_MINLOC or MPI_MAXLOC on it: MPI_Reduce of 65528
 * elements at 2 processes 170-175 ms against 15.6 ms, MPI_Allreduce 200-215
 * ms against 15 ms, MPI_Reduce_scatter 83-95 ms against 7.3 ms;
 * MPI_Reduce_local, which moves nothing, is not slower. ordo's crossing
 * case MPI_Reduce_scatter_init with MPI_MINLOC on MPI_DOUBLE_INT, 65536
 * elements, on an intercommunicator of 8 processes on 2 cores took 56 s on
 * 4.2.1 (4.0.2: 2.7 s) and passed its 60 s limit in a sweep.
 *
 *   mpicc.mpich pair_type_pack_slow.c -o repro && ./repro
 *
 * Times MPI_Pack and MPI_Unpack of 65536 MPI_DOUBLE_INT elements against
 * those of one MPI_Type_vector(65536, 12, 16, MPI_BYTE), the same bytes at
 * the same places (the best of 10 calls each). Exits 0 when the pair type
 * takes at most 30 times the vector, 1 otherwise (or when MPI_Unpack gives
 * back other values). Measured 2026-11-28 on a 2-core Debian 12 machine,
 * 4.2.1 and 5.0.2 in Debian 13 and unstable roots, two runs each (MPI_Pack,
 * pair type against vector): 4.0.2 1.5-2.0 against 0.34-0.42 ms (3-6x,
 * exit 0), 4.2.1 39-45 against 0.25 ms (158-181x, exit 1), 5.0.2 36-42
 * against 0.23-0.40 ms (92-180x, exit 1); MPI_Unpack alike. 4.0.2 in a
 * Debian 12 root is as fast as on the host: the roots are not the cause.
 * No upstream report found. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  double v;
  int i;
} pair;

enum { N = 65536, REPS = 10, LIMIT = 30 };

/* The best of REPS calls of MPI_Pack (unpack: MPI_Unpack) of count elements of t. */
static double best(MPI_Datatype t, int count, void* data, char* packed, int size, int unpack) {
  double b = 1e30;
  for (int r = 0; r < REPS; ++r) {
    int pos = 0;
    double t0 = MPI_Wtime();
    if (unpack)
      MPI_Unpack(packed, size, &pos, data, count, t, MPI_COMM_SELF);
    else
      MPI_Pack(data, count, t, packed, size, &pos, MPI_COMM_SELF);
    double d = MPI_Wtime() - t0;
    if (d < b) b = d;
  }
  return b;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  pair* in = malloc(N * sizeof(pair));
  pair* back = calloc(N, sizeof(pair));
  for (int k = 0; k < N; ++k) {
    in[k].v = k * 0.5;
    in[k].i = k;
  }
  MPI_Datatype vec;
  MPI_Type_vector(N, 12, 16, MPI_BYTE, &vec);
  MPI_Type_commit(&vec);
  int size = 0, vsize = 0;
  MPI_Pack_size(N, MPI_DOUBLE_INT, MPI_COMM_SELF, &size);
  MPI_Pack_size(1, vec, MPI_COMM_SELF, &vsize);
  char* packed = malloc(size > vsize ? size : vsize);
  const double vpack = best(vec, 1, in, packed, vsize, 0);
  const double vunpack = best(vec, 1, back, packed, vsize, 1);
  const double pack = best(MPI_DOUBLE_INT, N, in, packed, size, 0);
  const double unpack = best(MPI_DOUBLE_INT, N, back, packed, size, 1);
  int wrong = 0;
  for (int k = 0; k < N; ++k) wrong += back[k].v != in[k].v || back[k].i != in[k].i;
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(version, &len);
  printf("%.*s\n", (int)strcspn(version, "\n"), version);
  printf(
      "%d elements: MPI_Pack %.2f ms (the vector of bytes %.2f ms, %.0fx), MPI_Unpack %.2f ms"
      " (%.2f ms, %.0fx); more than %dx is this finding\n",
      N, pack * 1e3, vpack * 1e3, pack / vpack, unpack * 1e3, vunpack * 1e3, unpack / vunpack,
      LIMIT);
  if (wrong) printf("MPI_Unpack gave back %d wrong elements\n", wrong);
  MPI_Type_free(&vec);
  MPI_Finalize();
  return (pack > LIMIT * vpack || unpack > LIMIT * vunpack || wrong) ? 1 : 0;
}
