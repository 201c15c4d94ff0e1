/* Finding: forced to the ring algorithm (coll_tuned_allreduce_algorithm 4,
 * ring; 5, segmented_ring, the same), Open MPI's MPI_Allreduce on a datatype
 * whose data begins before the buffer address (a negative true lower bound,
 * here an hindexed type with a displacement of -8 bytes) corrupts the heap:
 * glibc aborts or the process segfaults, during the call or later. The op is
 * a commutative user op (a sum of ints), so the order of the operands plays
 * no part. Read in ompi/mca/coll/base/coll_base_allreduce.c (ring): the
 * temporary receive blocks are malloc'ed as true_extent + (n - 1) x extent
 * bytes and handed to the receive and the op without subtracting true_lb,
 * so the datatype's first bytes land before the allocation. With the
 * library's own choice, and at fewer elements than processes (the ring
 * falls back to recursive doubling), the result is right.
 *
 *   mpicc.openmpi allreduce_ring_negative_true_lb.c -o repro
 *   mpiexec.openmpi --allow-run-as-root --oversubscribe \
 *     --mca coll_tuned_use_dynamic_rules 1 \
 *     --mca coll_tuned_allreduce_algorithm 4 -n 2 ./repro [count]
 *
 * count: elements per process (3 by default; from as many as processes). Exits 0 when every process
 * holds the right sums, 1 when a value is wrong; an abort or a segfault is
 * the fault too. Upstream: none found. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The datatype's layout: four ints at these byte offsets from an element's
 * address, elements 24 bytes apart (its extent). */
static const MPI_Aint kOffsets[4] = {-8, -4, 8, 12};
static const MPI_Aint kExtent = 24;

/* A commutative sum over the datatype (a user op receives the elements as
 * the datatype lays them out). */
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
  const int count = argc > 1 ? atoi(argv[1]) : 3;

  /* Two blocks of two ints, at byte displacements -8 and 8: lb = -8,
   * extent 24, true lower bound -8. */
  MPI_Datatype type;
  const int blocks[2] = {2, 2};
  const MPI_Aint displs[2] = {-8, 8};
  MPI_Type_create_hindexed(2, blocks, displs, MPI_INT, &type);
  MPI_Type_commit(&type);
  MPI_Aint lb, extent;
  MPI_Type_get_extent(type, &lb, &extent);
  MPI_Op op;
  MPI_Op_create(sum, 1, &op);

  /* The buffers' address is 8 bytes into their allocation, so the data the
   * type describes (from -8) is inside it. */
  const size_t bytes = (size_t)extent * count;
  char* send_alloc = calloc(1, bytes);
  char* recv_alloc = calloc(1, bytes);
  char* send = send_alloc - lb;
  char* recv = recv_alloc - lb;
  for (int e = 0; e < count; e++)
    for (int k = 0; k < 4; k++) {
      const MPI_Aint at = e * extent + kOffsets[k];
      const int v = 1000 * rank + 10 * e + k;
      memcpy(send + at, &v, sizeof v);
    }
  MPI_Allreduce(send, recv, count, type, op, MPI_COMM_WORLD);

  int bad = 0;
  for (int e = 0; e < count && !bad; e++)
    for (int k = 0; k < 4 && !bad; k++) {
      const MPI_Aint at = e * extent + kOffsets[k];
      int got;
      memcpy(&got, recv + at, sizeof got);
      int want = 0;
      for (int r = 0; r < size; r++) want += 1000 * r + 10 * e + k;
      if (got != want) {
        printf("rank %d: element %d int %d: got %d, expected %d\n", rank, e, k, got, want);
        bad = 1;
      }
    }
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && !any) printf("MPI_Allreduce: every process holds the right sums\n");
  MPI_Op_free(&op);
  MPI_Type_free(&type);
  free(send_alloc);
  free(recv_alloc);
  MPI_Finalize();
  return any;
}
