/* Finding: MPI_Reduce with MPI_IN_PLACE at a root other than 0 crashes
 * (segmentation fault reading address MPI_IN_PLACE) once the message is
 * above the short-message size (MPI-4.1 Section 6.9.1: the in-place input is
 * taken from the root's receive buffer).
 *
 *   mpicc.mpich reduce_in_place_nonzero_root_crash.c -o repro
 *   mpiexec.mpich -n 2 ./repro 1000
 *
 * Exits 0 when the root receives the right sums, 1 on a wrong value (a crash
 * ends the job with the signal). MPICH 4.0.2 (ch4, two processes on one
 * node): SIGSEGV in MPIR_Localcopy from the reduce_scatter_gather algorithm.
 * Upstream: pmodels/mpich#6540, fixed by pmodels/mpich#6543 (4.1.2). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = argc > 1 ? atoi(argv[1]) : 1000, root = size - 1;
  int* buf = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; ++i) buf[i] = rank + i;
  if (rank == root)
    MPI_Reduce(MPI_IN_PLACE, buf, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
  else
    MPI_Reduce(buf, NULL, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
  int ok = 1;
  if (rank == root)
    for (int i = 0; i < n && ok; ++i)
      if (buf[i] != size * (size - 1) / 2 + size * i) {
        printf("element %d: expected %d, got %d\n", i, size * (size - 1) / 2 + size * i, buf[i]);
        ok = 0;
      }
  if (rank == root && ok) printf("the root received the right sums\n");
  free(buf);
  MPI_Finalize();
  return ok ? 0 : 1;
}
