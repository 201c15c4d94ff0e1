/* Finding (DETECT): forced to the recursive_doubling algorithm
 * (coll_tuned_reduce_scatter_block_algorithm 2), MPI_Reduce_scatter_block
 * with a datatype freed before the call (the program kept a copy of its
 * handle) ends the job with a segmentation fault. The freed handle is an
 * invalid argument (MPI-4.1 2.5.1, 5.1.9); the standard does not require it
 * to be detected, and with the library's own choice Open MPI 4.1.4 accepts
 * it and returns, but this algorithm dereferences the freed type.
 *
 *   mpicc.openmpi detect_freed_datatype_rsb_recursive_doubling_crash.c -o repro
 *   mpiexec.openmpi --allow-run-as-root --oversubscribe \
 *     --mca coll_tuned_use_dynamic_rules 1 \
 *     --mca coll_tuned_reduce_scatter_block_algorithm 2 -n 3 ./repro
 *
 * Exits 0 when the call returns (an error code or MPI_SUCCESS: both are
 * allowed for an erroneous call); a crash ends the job with a non-zero code.
 * Open MPI 4.1.4 in ordo: a segfault at 3, 4, 5 and 8 processes with a
 * user op declared non-commutative; the library's own choice returns. No
 * upstream report found. */
#include <mpi.h>
#include <stdio.h>

static void sum4(void* in, void* inout, int* len, MPI_Datatype* dt) {
  (void)dt;
  for (int i = 0; i < 4 * *len; ++i) ((int*)inout)[i] += ((int*)in)[i];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Op op;
  MPI_Op_create(sum4, 0, &op);
  MPI_Datatype type, kept;
  MPI_Type_contiguous(4, MPI_INT, &type);
  MPI_Type_commit(&type);
  kept = type;
  MPI_Type_free(&type);
  int send[4 * 16] = {0}, recv[4] = {0};
  for (int i = 0; i < 4 * size && i < 4 * 16; ++i) send[i] = rank + i;
  const int rc = MPI_Reduce_scatter_block(send, recv, 1, kept, op, MPI_COMM_WORLD);
  printf("rank %d: MPI_Reduce_scatter_block with a freed datatype returned %s\n", rank,
         rc == MPI_SUCCESS ? "MPI_SUCCESS" : "an error code");
  MPI_Op_free(&op);
  MPI_Finalize();
  return 0;
}
