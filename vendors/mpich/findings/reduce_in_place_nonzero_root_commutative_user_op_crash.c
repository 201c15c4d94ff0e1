/* Finding: MPI_Reduce with MPI_IN_PLACE at a root other than 0 also crashes
 * with a user op declared commutative (commute = 1), once the message is
 * above the short-message size: count x the datatype's size above 2048
 * bytes, whatever the count (129 elements of 4 ints, or one element of 129
 * such cells, or 3 elements of 207 cells as ordo's property phase met it).
 * The same call with the op declared non-commutative, or at root 0, passes.
 * (MPI-4.1 and MPI-5.0 Section 6.9.1: the in-place input is the root's
 * receive buffer; Section 6.9.5: commute = 1 lets the library reorder,
 * nothing more.)
 *
 *   mpicc.mpich reduce_in_place_nonzero_root_commutative_user_op_crash.c -o repro
 *   mpiexec.mpich -n 2 ./repro 129 1     (commutative: crashes on 4.0.2)
 *   mpiexec.mpich -n 2 ./repro 129 0     (non-commutative: passes)
 *   mpiexec.mpich -n 2 ./repro 128 1     (2048 bytes: passes)
 *   mpiexec.mpich -n 3 ./repro 3 1 207   (3 elements of 3312 bytes: crashes)
 *   mpiexec.mpich -n 3 ./repro 1 1 129   (1 element of 2064 bytes: crashes)
 *   mpiexec.mpich -n 3 ./repro 1 1 128   (1 element of 2048 bytes: passes)
 *
 * Arguments: count, commute, cells of 4 ints per element (default 1). Exits
 * 0 when the root receives the right sums, 1 on a wrong value (a crash ends
 * the job with the signal). Found by ordo's crossing check (op kind
 * "commutative-user" x in-place x root "last"); the predefined-op form of
 * the bug is pmodels/mpich#6540 (fixed by pmodels/mpich#6543). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static int cells = 1; /* cells of 4 ints per element */

static void add_ints(void* in, void* inout, int* len, MPI_Datatype* dt) {
  (void)dt; /* elements of cells x 4 ints */
  int* a = in;
  int* b = inout;
  for (int i = 0; i < *len * 4 * cells; ++i) b[i] += a[i];
}

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = argc > 1 ? atoi(argv[1]) : 129, commute = argc > 2 ? atoi(argv[2]) : 1;
  if (argc > 3) cells = atoi(argv[3]);
  const int root = size - 1;
  MPI_Datatype cell;
  MPI_Type_contiguous(4 * cells, MPI_INT, &cell);
  MPI_Type_commit(&cell);
  MPI_Op op;
  MPI_Op_create(add_ints, commute, &op);
  const int ints = 4 * cells * n;
  int* buf = malloc(sizeof(int) * (size_t)ints);
  for (int i = 0; i < ints; ++i) buf[i] = rank + i;
  if (rank == root)
    MPI_Reduce(MPI_IN_PLACE, buf, n, cell, op, root, MPI_COMM_WORLD);
  else
    MPI_Reduce(buf, NULL, n, cell, op, root, MPI_COMM_WORLD);
  int ok = 1;
  if (rank == root)
    for (int i = 0; i < ints; ++i) {
      const int want = size * i + size * (size - 1) / 2;
      if (buf[i] != want) {
        if (ok) printf("element %d: expected %d, got %d\n", i, want, buf[i]);
        ok = 0;
      }
    }
  if (rank == root) printf("%s\n", ok ? "right sums" : "wrong sums");
  free(buf);
  MPI_Op_free(&op);
  MPI_Type_free(&cell);
  MPI_Finalize();
  return ok ? 0 : 1;
}
