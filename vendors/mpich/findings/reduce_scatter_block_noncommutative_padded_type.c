/* Finding: MPI_Reduce_scatter_block with a non-commutative user op on a
 * datatype whose extent is larger than its data (padding, here
 * resized(0, 24, contiguous(4, MPI_INT))) gives wrong results, and can
 * crash, at power-of-two process counts (MPI-4.1 Sections 6.9.5 and 6.10.1:
 * the reduction in rank order, block i to rank i).
 *
 * The op keeps its left operand (inoutvec := invec), which is associative
 * and not commutative: the reduction of x0, ..., x(p-1) is x0, so every rank
 * must receive rank 0's block.
 *
 *   mpicc.mpich reduce_scatter_block_noncommutative_padded_type.c -o repro
 *   mpiexec.mpich -n 2 ./repro      (also -n 4; -n 3 is right)
 *
 * Exits 0 when every rank receives rank 0's block, 1 otherwise. MPICH 4.0.2
 * fails at 2 and 4 processes. No upstream report found. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static void keep_left(void* in, void* inout, int* len, MPI_Datatype* dt) {
  /* Elements are 4 ints followed by 8 bytes of padding. */
  MPI_Aint lb, extent;
  MPI_Type_get_extent(*dt, &lb, &extent);
  for (int k = 0; k < *len; ++k)
    for (int j = 0; j < 4; ++j)
      ((int*)((char*)inout + k * extent))[j] = ((int*)((char*)in + k * extent))[j];
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Datatype cells, padded;
  MPI_Type_contiguous(4, MPI_INT, &cells);
  MPI_Type_create_resized(cells, 0, 24, &padded);
  MPI_Type_commit(&padded);
  MPI_Op op;
  MPI_Op_create(keep_left, 0, &op);
  /* One padded element per block: 6 ints per element, 4 of data. */
  int *send = malloc(sizeof(int) * 6 * (size_t)size), recv[6];
  for (int b = 0; b < size; ++b)
    for (int j = 0; j < 6; ++j) send[6 * b + j] = j < 4 ? 1000 * rank + 10 * b + j : -7;
  for (int j = 0; j < 6; ++j) recv[j] = -9;
  MPI_Reduce_scatter_block(send, recv, 1, padded, op, MPI_COMM_WORLD);
  int ok = 1;
  for (int j = 0; j < 4; ++j)
    if (recv[j] != 10 * rank + j) {
      printf("rank %d int %d: expected %d (rank 0's block %d), got %d\n", rank, j, 10 * rank + j,
             rank, recv[j]);
      ok = 0;
    }
  if (recv[4] != -9 || recv[5] != -9)
    printf("rank %d: the padding of recvbuf was written\n", rank), ok = 0;
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0 && all) printf("every rank received rank 0's block\n");
  MPI_Op_free(&op);
  MPI_Type_free(&padded);
  MPI_Type_free(&cells);
  free(send);
  MPI_Finalize();
  return all ? 0 : 1;
}
