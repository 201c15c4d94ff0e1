/* Finding: MPI_Reduce on an intercommunicator rejects sendbuf = NULL at the
 * root (root = MPI_ROOT), where the send buffer is not significant
 * (MPI-4.1 Section 6.9.1: "Only send buffer arguments are significant in
 * group B and only receive buffer arguments are significant at the root").
 *
 * Build and run (needs at least 2 processes):
 *   mpicc.mpich intercomm_reduce_null_sendbuf_at_root.c -o repro
 *   mpiexec.mpich -n 2 ./repro
 * Exits 0 when the library accepts the call and the root receives the sum of
 * the other group's values, 1 otherwise. MPICH 4.0.2 fails with "Null buffer
 * pointer"; fixed upstream by pmodels/mpich#6354 (issue #6351). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank, size, ok = 1;
  MPI_Comm local, inter;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "needs at least 2 processes\n");
    MPI_Finalize();
    return 2;
  }
  /* Group A = world rank 0 (the root), group B = the others. */
  int in_a = rank == 0;
  MPI_Comm_split(MPI_COMM_WORLD, in_a, rank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, in_a ? 1 : 0, 99, &inter);
  MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
  int value = 10 + rank, result = -1;
  int rc;
  if (in_a)
    rc = MPI_Reduce(NULL, &result, 1, MPI_INT, MPI_SUM, MPI_ROOT, inter);
  else
    rc = MPI_Reduce(&value, NULL, 1, MPI_INT, MPI_SUM, 0, inter);
  if (rc != MPI_SUCCESS) {
    char msg[MPI_MAX_ERROR_STRING];
    int len;
    MPI_Error_string(rc, msg, &len);
    printf("rank %d: MPI_Reduce returned an error: %s\n", rank, msg);
    ok = 0;
  } else if (in_a) {
    int expected = 0;
    for (int r = 1; r < size; ++r) expected += 10 + r;
    printf("root: expected %d, got %d\n", expected, result);
    ok = result == expected;
  }
  int all_ok;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  MPI_Finalize();
  return all_ok ? 0 : 1;
}
