/* Finding: forced to coll_tuned's knomial reduce (coll_tuned_use_dynamic_rules
 * 1, coll_tuned_reduce_algorithm 8, new in 6.0), Open MPI 6.0.0rc2's
 * MPI_Reduce with a user op on a datatype whose data starts at a nonzero
 * offset (a nonzero true lower bound: here hindexed([2,2],[first,8],MPI_INT))
 * combines the children's data into the wrong bytes of its scratch buffer.
 * With the data 8 bytes below the address (first = -8, the default) the op
 * overwrites the heap chunk's header: glibc aborts ("free(): invalid size",
 * "munmap_chunk(): invalid pointer"; signal 6) or the process segfaults
 * (signal 11); with first = -4 glibc aborts with "double free or corruption
 * (out)" and the process then never exits (a hang); with -16, -24 or a
 * positive true lower bound (first = 16) the root gets a wrong result (with
 * -24 its own values only) and the heap is silently corrupted. first = 0 is right.
 *
 *   mpicc.openmpi tuned_reduce_knomial_negative_lb_crash.c -o repro
 *   mpiexec.openmpi --allow-run-as-root --oversubscribe \
 *     --mca coll_tuned_use_dynamic_rules 1 --mca coll_tuned_reduce_algorithm 8 \
 *     -n 2 ./repro [count [first [user|noncommutative [root]]]]
 *
 * count: elements per process (1); first: the byte offset of the first block
 * (-8); the op: an integer sum declared commutative (user) or not; root (0).
 * Exits 0 when the root holds the right sums, 1 when a value is wrong; a
 * crash or a hang is the fault.
 *
 * Measured 2026-11-28 in ordo's Debian unstable root (6.0.0rc2), 2-3 runs
 * each: first -8 crashed every run at 2-8 processes (signal 6 at 2 and 3,
 * 6 or 11 from 4), with counts 1, 2, 3, 7 and 100, root 0, 2 or the last
 * rank, commutative or not; -4 hung at 2, 4 and 7; -24, -16 and 16 gave
 * wrong results at 2-8 (-24 sometimes a segfault); 0 was right. The
 * library's own choice is right. MPI_SUM is refused on this type
 * (MPI_ERR_OP), so only user ops reach it. Debian 13's 5.0.7 has no
 * algorithm 8 (forcing it gave right results).
 *
 * Cause, read in ompi/mca/coll/base/coll_base_reduce.c
 * (ompi_coll_base_reduce_intra_knomial; v6.0.x at bb1c85d203, main at
 * 8efebee745, lines 1217-1257): the scratch buffer is allocated for the
 * type's span and its data address is set to reduce_buf - gap (gap = the
 * true lower bound), which the copy in, the send to the parent and the copy
 * out use; but the loop that combines each child's contribution passes
 * ompi_op_reduce the allocation's address reduce_buf instead, so the op
 * reads and writes gap bytes away from the data: before the allocation for
 * a negative true lower bound, past its end for a positive one. Upstream:
 * none found. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The element: two blocks of two ints, the first at byte `first` from the
 * element's address, the second at byte 8 (hindexed([2,2],[first,8])). */
enum { kInts = 4 };

static MPI_Aint g_offsets[kInts];
static MPI_Aint g_extent;

static void sum(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  for (int e = 0; e < *len; e++)
    for (int k = 0; k < kInts; k++) {
      int a, b;
      memcpy(&a, (char*)in + e * g_extent + g_offsets[k], sizeof a);
      memcpy(&b, (char*)inout + e * g_extent + g_offsets[k], sizeof b);
      b += a;
      memcpy((char*)inout + e * g_extent + g_offsets[k], &b, sizeof b);
    }
}

static int value(int rank, int e, int k) { return 1000 * rank + 10 * e + k + 1; }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int count = argc > 1 ? atoi(argv[1]) : 1;
  const MPI_Aint first = argc > 2 ? atol(argv[2]) : -8;
  const char* op_name = argc > 3 ? argv[3] : "user";
  const int root = argc > 4 ? atoi(argv[4]) : 0;
  if (count < 1 || root < 0 || root >= size ||
      (strcmp(op_name, "user") && strcmp(op_name, "noncommutative"))) {
    if (rank == 0) fprintf(stderr, "usage: repro [count [first [user|noncommutative [root]]]]\n");
    MPI_Finalize();
    return 2;
  }

  const int lengths[2] = {2, 2};
  const MPI_Aint displs[2] = {first, 8};
  MPI_Datatype type;
  MPI_Type_create_hindexed(2, lengths, displs, MPI_INT, &type);
  MPI_Type_commit(&type);
  MPI_Aint lb, true_lb, true_extent;
  MPI_Type_get_extent(type, &lb, &g_extent);
  MPI_Type_get_true_extent(type, &true_lb, &true_extent);
  for (int k = 0; k < kInts; k++) g_offsets[k] = displs[k / 2] + 4 * (k % 2);

  MPI_Op op;
  MPI_Op_create(sum, strcmp(op_name, "user") == 0, &op);

  /* The buffers span [true_lb, true_lb + true_extent + (count - 1) x extent)
   * from their address. */
  const size_t bytes = (size_t)(true_extent + (count - 1) * g_extent);
  char* send_alloc = calloc(1, bytes);
  char* recv_alloc = calloc(1, bytes);
  char* send = send_alloc - true_lb;
  char* recv = recv_alloc - true_lb;
  for (int e = 0; e < count; e++)
    for (int k = 0; k < kInts; k++) {
      const int v = value(rank, e, k);
      memcpy(send + e * g_extent + g_offsets[k], &v, sizeof v);
    }

  MPI_Reduce(send, recv, count, type, op, root, MPI_COMM_WORLD);

  int wrong = 0;
  if (rank == root)
    for (int e = 0; e < count; e++)
      for (int k = 0; k < kInts; k++) {
        int expected = 0, got;
        for (int r = 0; r < size; r++) expected += value(r, e, k);
        memcpy(&got, recv + e * g_extent + g_offsets[k], sizeof got);
        if (got != expected) {
          if (wrong < 4)
            printf("element %d int %d (byte %ld): expected %d, got %d\n", e, k,
                   (long)(e * g_extent + g_offsets[k]), expected, got);
          wrong++;
        }
      }
  if (rank == root)
    printf(
        "%s: %d processes, count %d, hindexed([2,2],[%ld,8],MPI_INT) (lb %ld, "
        "true lb %ld, extent %ld), %s, root %d\n",
        wrong ? "WRONG" : "right", size, count, (long)first, (long)lb, (long)true_lb,
        (long)g_extent, op_name, root);
  int any = 0;
  MPI_Allreduce(&wrong, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  free(send_alloc);
  free(recv_alloc);
  MPI_Op_free(&op);
  MPI_Type_free(&type);
  MPI_Finalize();
  return any ? 1 : 0;
}
