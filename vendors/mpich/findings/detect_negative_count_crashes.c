/* Finding (DETECT): a negative count in the blocking int bindings of the
 * reductions is not checked. MPI_Reduce, MPI_Allreduce, MPI_Scan,
 * MPI_Exscan, MPI_Reduce_local with count = -3, and MPI_Reduce_scatter_block
 * with recvcount = -3, end the job (segmentation fault, or "Assertion failed
 * in file src/mpi/datatype/typerep/src/typerep_yaksa_pack.c ... memcpy
 * argument memory ranges overlap") instead of returning an error under
 * MPI_ERRORS_RETURN. count and recvcount are non-negative integers (MPI-4.1
 * 6.9.1, 6.9.6, 6.9.7, 6.10.1, 6.11). The nonblocking and persistent forms
 * (MPI_Iscan, MPI_Reduce_init, ...) and MPI_Reduce_scatter do report
 * "Invalid count" / "Other MPI error".
 *
 *   mpicc.mpich detect_negative_count_crashes.c -o repro
 *   mpiexec.mpich -n 2 ./repro 1     # 1 Reduce, 2 Allreduce, 3 Scan, 4 Exscan,
 *                                    # 5 Reduce_local, 6 Reduce_scatter_block
 *   mpiexec.mpich -n 2 ./repro 6
 *   mpiexec.mpich -n 4 ./repro 2
 *
 * Exits 0 when the call returns an error code, 2 when it returns MPI_SUCCESS
 * (accepted: MPI_Reduce / MPI_Allreduce / MPI_Reduce_scatter_block at 1
 * process); the crash ends the job with a non-zero code. MPICH 4.0.2: every
 * one of the six crashes at 2 to 4 processes (Scan, Exscan and Reduce_local at
 * 1 process as well); Reduce_scatter_block with "memcpy argument memory
 * ranges overlap ... len_=-12" and Abort(1). MPICH 4.2.1: 1 to 4 and 6 abort
 * (SIGABRT; Reduce, Allreduce, Exscan and Reduce_scatter_block on
 * "src/frontend/pup/yaksi_iunpack_backend.c:82: unpack_backend: Assertion
 * `0' failed", no memcpy text) at 2 processes; at 4 Hydra reports the
 * SIGTERM (signal 15) or SIGKILL (signal 9) it sends the other processes
 * after the abort; 5 (Reduce_local) returns MPI_SUCCESS. No upstream report
 * found. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int rank, size, rc = MPI_SUCCESS, which = argc > 1 ? atoi(argv[1]) : 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  int *a = calloc(3 * (size_t)size, sizeof(int)), *b = calloc(3 * (size_t)size, sizeof(int));
  switch (which) {
    case 1:
      rc = MPI_Reduce(a, b, -3, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
      break;
    case 2:
      rc = MPI_Allreduce(a, b, -3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      break;
    case 3:
      rc = MPI_Scan(a, b, -3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      break;
    case 4:
      rc = MPI_Exscan(a, b, -3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      break;
    case 5:
      rc = MPI_Reduce_local(a, b, -3, MPI_INT, MPI_SUM);
      break;
    default:
      rc = MPI_Reduce_scatter_block(a, b, -3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      break;
  }
  printf("rank %d: the call with a negative count returned %s\n", rank,
         rc == MPI_SUCCESS ? "MPI_SUCCESS (accepted)" : "an error code (reported)");
  free(a);
  free(b);
  MPI_Finalize();
  return rc == MPI_SUCCESS ? 2 : 0;
}
