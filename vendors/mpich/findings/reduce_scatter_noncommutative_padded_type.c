/* Finding: MPI_Reduce_scatter and MPI_Ireduce_scatter with a
 * non-commutative user op on a datatype whose extent differs from its true
 * extent gives wrong blocks, and with padding crashes, when every entry of
 * recvcounts is the same (and not 0) on a communicator of a power-of-two
 * number of processes: the case MPICH 4.0.2 gives its non-commutative
 * butterfly (MPIR_Reduce_scatter_intra_noncommutative; MPI_Ireduce_scatter
 * its schedule), the algorithm of MPI_Reduce_scatter_block's finding
 * reduce_scatter_block_noncommutative_padded_type.c. Uneven recvcounts, 3
 * processes, a commutative op and a type without padding or interleaving
 * are right. (MPI-4.1 and MPI-5.0 Section 6.10.2: the reduction in rank
 * order, rank i receiving recvcounts[i] elements after those of ranks
 * 0..i-1; Section 6.9.5: a non-commutative op is applied in rank order.)
 *
 * The op keeps its left operand (inoutvec := invec), which is associative
 * and not commutative: the reduction of x0, ..., x(p-1) is x0, so every
 * rank must receive rank 0's elements of its block. The commutative op
 * adds, so every rank must receive the sum of its elements over the ranks.
 *
 *   mpicc.mpich reduce_scatter_noncommutative_padded_type.c -o repro
 *   mpiexec.mpich -n 2 ./repro interleaved 1   (wrong blocks on 4.0.2)
 *   mpiexec.mpich -n 4 ./repro interleaved 2   (wrong blocks)
 *   mpiexec.mpich -n 2 ./repro padded 1        (wrong blocks)
 *   mpiexec.mpich -n 2 ./repro padded 1000     (glibc abort: free(): invalid pointer)
 *   mpiexec.mpich -n 2 ./repro interleaved 1,2 (uneven: right)
 *   mpiexec.mpich -n 3 ./repro interleaved 1   (3 processes: right)
 *   mpiexec.mpich -n 2 ./repro interleaved 1 commutative   (right)
 *   mpiexec.mpich -n 2 ./repro interleaved 1 nonblocking   (wrong blocks)
 *   mpiexec.mpich -n 2 ./repro plain 1         (right)
 *
 * Arguments: the element type (plain: contiguous(4,MPI_INT); padded:
 * resized(0,24,contiguous(4,MPI_INT)); interleaved:
 * resized(0,32,hindexed([1,1],[0,48],contiguous(4,MPI_INT))), each
 * element's second cell lying among the next element's, no two elements
 * overlapping at any count), recvcounts as a comma list (the last entry
 * repeated for the remaining ranks), then "commutative" for the adding op
 * and "nonblocking" for MPI_Ireduce_scatter.
 * Exits 0 when every rank receives the expected elements and its receive
 * buffer's holes are untouched, 1 otherwise, 2 on bad arguments (a crash
 * ends the job with the signal). MPICH 4.0.2 fails at 2, 4 and 8
 * processes. No upstream report found; ordo finding (property phase). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One element: the int offsets of its data, and its extent in ints. */
static int n_data = 4, extent_ints = 4, true_extent_ints = 4;
static int data_at[8] = {0, 1, 2, 3};

static void keep_left(void* in, void* inout, int* len, MPI_Datatype* dt) {
  (void)dt;
  for (int k = 0; k < *len; ++k)
    for (int j = 0; j < n_data; ++j)
      ((int*)inout)[k * extent_ints + data_at[j]] = ((int*)in)[k * extent_ints + data_at[j]];
}

static void add(void* in, void* inout, int* len, MPI_Datatype* dt) {
  (void)dt;
  for (int k = 0; k < *len; ++k)
    for (int j = 0; j < n_data; ++j)
      ((int*)inout)[k * extent_ints + data_at[j]] += ((int*)in)[k * extent_ints + data_at[j]];
}

/* The value rank r sends in int j of its element e. */
static int input(int r, int e, int j) { return 1000 * r + 10 * e + j; }

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* kind = argc > 1 ? argv[1] : "interleaved";
  int commute = 0, nonblocking = 0;
  for (int i = 3; i < argc; ++i) {
    if (strcmp(argv[i], "commutative") == 0) {
      commute = 1;
    } else if (strcmp(argv[i], "nonblocking") == 0) {
      nonblocking = 1;
    } else {
      if (rank == 0) fprintf(stderr, "repro: unknown argument '%s'\n", argv[i]);
      MPI_Finalize();
      return 2;
    }
  }
  MPI_Datatype cell, two, dt;
  MPI_Type_contiguous(4, MPI_INT, &cell);
  if (strcmp(kind, "plain") == 0) {
    MPI_Type_dup(cell, &dt);
  } else if (strcmp(kind, "padded") == 0) {
    MPI_Type_create_resized(cell, 0, 24, &dt);
    extent_ints = 6;
  } else if (strcmp(kind, "interleaved") == 0) {
    const int blocks[2] = {1, 1};
    const MPI_Aint displs[2] = {0, 48};
    MPI_Type_create_hindexed(2, blocks, displs, cell, &two);
    MPI_Type_create_resized(two, 0, 32, &dt);
    MPI_Type_free(&two);
    n_data = 8, extent_ints = 8, true_extent_ints = 16;
    for (int j = 4; j < 8; ++j) data_at[j] = 8 + j;
  } else {
    if (rank == 0) fprintf(stderr, "repro: unknown type '%s' (plain, padded, interleaved)\n", kind);
    MPI_Finalize();
    return 2;
  }
  MPI_Type_commit(&dt);
  int* recvcounts = malloc(sizeof(int) * (size_t)size);
  {
    char* list = strdup(argc > 2 ? argv[2] : "1");
    int i = 0, last = 1;
    for (char* t = strtok(list, ","); t && i < size; t = strtok(NULL, ","), ++i)
      recvcounts[i] = last = atoi(t);
    for (; i < size; ++i) recvcounts[i] = last;
    free(list);
  }
  int total = 0, first = 0;
  for (int i = 0; i < size; ++i) total += recvcounts[i];
  for (int i = 0; i < rank; ++i) first += recvcounts[i];
  MPI_Op op;
  MPI_Op_create(commute ? add : keep_left, commute, &op);

  /* Buffers of count x extent plus the rest of the last element's true extent. */
  const int send_ints = total * extent_ints + true_extent_ints;
  const int recv_ints = recvcounts[rank] * extent_ints + true_extent_ints;
  int* send = malloc(sizeof(int) * (size_t)send_ints);
  int* recv = malloc(sizeof(int) * (size_t)recv_ints);
  char* is_data = calloc((size_t)recv_ints, 1);
  for (int i = 0; i < send_ints; ++i) send[i] = -7;
  for (int e = 0; e < total; ++e)
    for (int j = 0; j < n_data; ++j) send[e * extent_ints + data_at[j]] = input(rank, e, j);
  for (int i = 0; i < recv_ints; ++i) recv[i] = -9;

  if (nonblocking) {
    MPI_Request request;
    MPI_Ireduce_scatter(send, recv, recvcounts, dt, op, MPI_COMM_WORLD, &request);
    MPI_Wait(&request, MPI_STATUS_IGNORE);
  } else {
    MPI_Reduce_scatter(send, recv, recvcounts, dt, op, MPI_COMM_WORLD);
  }

  int ok = 1;
  for (int e = 0; e < recvcounts[rank]; ++e)
    for (int j = 0; j < n_data; ++j) {
      const int at = e * extent_ints + data_at[j], g = first + e;
      int want = input(0, g, j); /* keep_left: rank 0's element */
      if (commute)
        for (int r = 1; r < size; ++r) want += input(r, g, j);
      is_data[at] = 1;
      if (recv[at] != want) {
        if (ok)
          printf("rank %d, element %d, int %d: expected %d, got %d\n", rank, e, j, want, recv[at]);
        ok = 0;
      }
    }
  for (int i = 0; i < recv_ints; ++i)
    if (!is_data[i] && recv[i] != -9) {
      printf("rank %d: int %d of recvbuf, a hole of its datatype, was written\n", rank, i);
      ok = 0;
      break;
    }
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0) printf("%s\n", all ? "every rank received its elements" : "wrong blocks");
  MPI_Op_free(&op);
  MPI_Type_free(&dt);
  MPI_Type_free(&cell);
  free(send), free(recv), free(is_data), free(recvcounts);
  MPI_Finalize();
  return all ? 0 : 1;
}
