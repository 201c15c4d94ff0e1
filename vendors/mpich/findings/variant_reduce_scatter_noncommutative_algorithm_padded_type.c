/* Finding (algorithm variants mpich.reduce_scatter.intra.noncommutative,
 * mpich.reduce_scatter_block.intra.noncommutative and their nonblocking
 * sched_noncommutative forms): MPICH 4.0.2's non-commutative butterfly
 * gives wrong blocks for a *commutative* user op (here an element-wise sum)
 * on a datatype whose extent is larger than its data (padding:
 * resized(0, 24, contiguous(4, MPI_INT))), at power-of-two process counts.
 * With many elements it also overruns a heap block (glibc aborts or
 * SIGSEGV). The library's own choice uses this algorithm only for a
 * non-commutative op (reduce_scatter_block_noncommutative_padded_type.c);
 * forced by the cvar it meets every user op. MPI-4.1 Sections 6.10.1 and
 * 6.10.2 (MPI-5.0 Sections 6.10.1 and 6.10.2): block i of the sums to
 * process i, whatever the algorithm.
 *
 *   mpicc.mpich variant_reduce_scatter_noncommutative_algorithm_padded_type.c -o repro
 *   mpiexec.mpich -n 2 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_REDUCE_SCATTER_BLOCK_INTRA_ALGORITHM noncommutative ./repro
 *   mpiexec.mpich -n 2 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_REDUCE_SCATTER_INTRA_ALGORITHM noncommutative ./repro rs
 *   mpiexec.mpich -n 2 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_IREDUCE_SCATTER_BLOCK_INTRA_ALGORITHM sched_noncommutative \
 *       ./repro rsb nonblocking
 *   mpiexec.mpich -n 2 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_IREDUCE_SCATTER_INTRA_ALGORITHM sched_noncommutative \
 *       ./repro rs nonblocking
 *   (arguments: rsb|rs, blocking|nonblocking, elements per block, extent in
 *   bytes; default rsb blocking 1 24.)
 *
 * Exits 0 when every process receives its block of sums with the padding
 * untouched, 1 otherwise. MPICH 4.0.2: wrong at -n 2 and -n 4 under each of
 * the four forced algorithms; right with extent 16 (no padding), and right
 * under recursive_halving, pairwise, recursive_doubling and their sched_
 * forms. No upstream report found. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add4(void* in, void* inout, int* len, MPI_Datatype* dt) {
  MPI_Aint lb, extent;
  MPI_Type_get_extent(*dt, &lb, &extent);
  for (int k = 0; k < *len; ++k)
    for (int j = 0; j < 4; ++j)
      ((int*)((char*)inout + k * extent))[j] += ((int*)((char*)in + k * extent))[j];
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* routine = argc > 1 ? argv[1] : "rsb";
  int nonblocking = argc > 2 && strcmp(argv[2], "nonblocking") == 0;
  int n = argc > 3 ? atoi(argv[3]) : 1;
  int extent = argc > 4 ? atoi(argv[4]) : 24, w = extent / 4;
  MPI_Datatype cells, padded;
  MPI_Type_contiguous(4, MPI_INT, &cells);
  MPI_Type_create_resized(cells, 0, extent, &padded);
  MPI_Type_commit(&padded);
  MPI_Op op;
  MPI_Op_create(add4, 1, &op);
  int* send = malloc(sizeof(int) * w * n * (size_t)size);
  int* recv = malloc(sizeof(int) * w * n);
  int* counts = malloc(sizeof(int) * size);
  for (int b = 0; b < size * n; ++b)
    for (int j = 0; j < w; ++j) send[w * b + j] = j < 4 ? 1000 * rank + 10 * b + j : -7;
  for (int j = 0; j < w * n; ++j) recv[j] = -9;
  for (int i = 0; i < size; ++i) counts[i] = n;
  MPI_Request req = MPI_REQUEST_NULL;
  if (strcmp(routine, "rs") == 0) {
    if (nonblocking)
      MPI_Ireduce_scatter(send, recv, counts, padded, op, MPI_COMM_WORLD, &req);
    else
      MPI_Reduce_scatter(send, recv, counts, padded, op, MPI_COMM_WORLD);
  } else {
    if (nonblocking)
      MPI_Ireduce_scatter_block(send, recv, n, padded, op, MPI_COMM_WORLD, &req);
    else
      MPI_Reduce_scatter_block(send, recv, n, padded, op, MPI_COMM_WORLD);
  }
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  int ok = 1;
  for (int e = 0; e < n; ++e)
    for (int j = 0; j < w; ++j) {
      int b = rank * n + e;
      int expected = j < 4 ? 1000 * size * (size - 1) / 2 + size * (10 * b + j) : -9;
      if (recv[w * e + j] != expected) {
        if (ok)
          printf("rank %d element %d int %d: expected %d, got %d\n", rank, e, j, expected,
                 recv[w * e + j]);
        ok = 0;
      }
    }
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0)
    printf("%s %s, %d element(s) of extent %d per block, %d processes: %s\n", routine,
           nonblocking ? "nonblocking" : "blocking", n, extent, size,
           all ? "every block right" : "WRONG");
  MPI_Op_free(&op);
  MPI_Type_free(&padded);
  MPI_Type_free(&cells);
  free(send);
  free(recv);
  free(counts);
  MPI_Finalize();
  return all ? 0 : 1;
}
