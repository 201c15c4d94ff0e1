/* Finding: forced to coll_adapt's binomial reduce (coll_adapt_priority 100,
 * coll_adapt_reduce_algorithm 1), Open MPI 4.1.4's MPI_Reduce with a
 * commutative user op on a datatype resized to a negative lower bound
 * (resized(-8, 40, vector(2, 2, 3, MPI_INT)): two blocks of two ints at
 * bytes 0 and 12, lb -8, extent 40) and 7 elements per process ends the job
 * with a segmentation fault from 5 processes on (in ordo, most runs; chain
 * and linear (algorithms 5, 6) from 4, binary (3) at 8). 6 and
 * 8 elements, 1000 elements, the same type with lb 0, binomial at 4
 * processes and the
 * library's own choice are right. The cause was not found.
 *
 *   mpicc.openmpi adapt_reduce_binomial_negative_lb_crash.c -o repro
 *   mpiexec.openmpi --allow-run-as-root --oversubscribe \
 *     --mca coll_adapt_priority 100 --mca coll_adapt_reduce_algorithm 1 \
 *     -n 5 ./repro [count [lb]]
 *
 * count: elements per process (7 by default); lb: the resized lower bound
 * in bytes (-8 by default). Exits 0 when the root holds the right sums, 1
 * when a value is wrong; a segfault is the fault. Upstream: none found. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The data of one element: four ints at these byte offsets from its
 * address; elements are 40 bytes apart (the resized extent). */
static const MPI_Aint kOffsets[4] = {0, 4, 12, 16};
static const MPI_Aint kExtent = 40;

static void sum(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  for (int e = 0; e < *len; e++)
    for (int k = 0; k < 4; k++) {
      int a, b;
      memcpy(&a, (char*)in + e * kExtent + kOffsets[k], sizeof a);
      memcpy(&b, (char*)inout + e * kExtent + kOffsets[k], sizeof b);
      b += a;
      memcpy((char*)inout + e * kExtent + kOffsets[k], &b, sizeof b);
    }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int count = argc > 1 ? atoi(argv[1]) : 7;
  const MPI_Aint lb = argc > 2 ? atol(argv[2]) : -8;

  MPI_Datatype vector, type;
  MPI_Type_vector(2, 2, 3, MPI_INT, &vector);
  MPI_Type_create_resized(vector, lb, kExtent, &type);
  MPI_Type_commit(&type);
  MPI_Op op;
  MPI_Op_create(sum, 1, &op);

  /* The buffers span [lb, lb + count x extent) from their address. */
  const size_t bytes = (size_t)(kExtent * count);
  char* send_alloc = calloc(1, bytes);
  char* recv_alloc = calloc(1, bytes);
  char* send = send_alloc - lb;
  char* recv = recv_alloc - lb;
  for (int e = 0; e < count; e++)
    for (int k = 0; k < 4; k++) {
      const int v = 1000 * rank + 10 * e + k;
      memcpy(send + e * kExtent + kOffsets[k], &v, sizeof v);
    }
  MPI_Reduce(send, recv, count, type, op, 0, MPI_COMM_WORLD);

  int bad = 0;
  for (int e = 0; rank == 0 && e < count && !bad; e++)
    for (int k = 0; k < 4 && !bad; k++) {
      int got, want = 0;
      memcpy(&got, recv + e * kExtent + kOffsets[k], sizeof got);
      for (int r = 0; r < size; r++) want += 1000 * r + 10 * e + k;
      if (got != want) {
        printf("root: element %d int %d: got %d, expected %d\n", e, k, got, want);
        bad = 1;
      }
    }
  if (rank == 0 && !bad) printf("MPI_Reduce: the root holds the right sums\n");
  MPI_Op_free(&op);
  MPI_Type_free(&type);
  MPI_Type_free(&vector);
  free(send_alloc);
  free(recv_alloc);
  MPI_Finalize();
  return bad;
}
