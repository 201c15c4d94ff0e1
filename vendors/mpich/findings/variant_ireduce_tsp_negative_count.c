/* Finding (DETECT, transport-based algorithm variants only): forced to one of
 * its tsp_* algorithms, MPICH 4.0.2 does not check a negative count in the
 * nonblocking and persistent reductions that algorithm serves:
 *   - mpich.ireduce.intra.tsp_tree / tsp_ring: MPI_Ireduce with count -3 ends
 *     the job with a segmentation fault; MPI_Reduce_init with the same count
 *     returns MPI_SUCCESS (accepted), then its first MPI_Start ends the job
 *     the same way;
 *   - mpich.iallreduce.intra.tsp_recexch_single_buffer,
 *     tsp_recexch_multiple_buffer, tsp_tree (and the adapter's k-ary shapes of
 *     them): MPI_Iallreduce and MPI_Allreduce_init with count -3 end the job
 *     (a yaksa assertion "memcpy argument memory ranges overlap ... len_=-12",
 *     or a segmentation fault);
 *   - mpich.ireduce_scatter_block.intra.tsp_recexch (MPI_Ireduce_scatter_block,
 *     MPI_Reduce_scatter_block_init) and mpich.iscan.intra.tsp_recursive_doubling
 *     (MPI_Iscan, MPI_Scan_init): the same.
 * count is a non-negative integer (MPI-4.1 6.9.1); under MPI_ERRORS_RETURN
 * the call should return an error code, as the library's own choice of
 * algorithm and the sched_* algorithms do ("Other MPI error").
 *
 *   mpicc.mpich variant_ireduce_tsp_negative_count.c -o repro
 *   MPIR_CVAR_DEVICE_COLLECTIVES=none MPIR_CVAR_IREDUCE_INTRA_ALGORITHM=tsp_tree \
 *     mpiexec.mpich -n 2 ./repro 1      # 1: MPI_Ireduce, 2: MPI_Reduce_init
 *   MPIR_CVAR_DEVICE_COLLECTIVES=none \
 *     MPIR_CVAR_IALLREDUCE_INTRA_ALGORITHM=tsp_recexch_single_buffer \
 *     mpiexec.mpich -n 2 ./repro 3      # 3: MPI_Iallreduce, 4: MPI_Allreduce_init
 *   MPIR_CVAR_DEVICE_COLLECTIVES=none \
 *     MPIR_CVAR_IREDUCE_SCATTER_BLOCK_INTRA_ALGORITHM=tsp_recexch \
 *     mpiexec.mpich -n 2 ./repro 5      # 5: MPI_Ireduce_scatter_block, 7: its _init
 *   MPIR_CVAR_DEVICE_COLLECTIVES=none \
 *     MPIR_CVAR_ISCAN_INTRA_ALGORITHM=tsp_recursive_doubling \
 *     mpiexec.mpich -n 2 ./repro 6      # 6: MPI_Iscan, 8: MPI_Scan_init
 *
 * Exits 0 when the call returns an error code, 2 when it returns MPI_SUCCESS
 * (an accepted persistent request, modes 2, 4, 7 and 8, is started once); the
 * crash ends the job with a non-zero code (Hydra may report 0 for a job whose
 * processes all aborted: the output then shows the assertion and no "returned"
 * line). MPICH 4.0.2 at 2 processes: the calls above crash (2 to 8 processes
 * in ordo's sweep), MPI_Reduce_init is accepted and its MPI_Start crashes;
 * without the variables (auto) and with the sched_* algorithms every call
 * returns an error. MPICH 4.2.1 and 5.0.2 at 2 processes (measured
 * 2026-11-28, modes 3 and 4, 3 runs each under tsp_tree and
 * tsp_recexch_single_buffer; once under the other tsp_* and the .k3 and
 * knomial_2 shapes on 4.2.1): every run ends the job, never an error code;
 * recexch aborts on yaksa's 'unpack_backend: Assertion `0' failed.' (signal 6),
 * tsp_tree on 'Assertion failed in file .../iallreduce_tsp_tree.c ...
 * child_buffer[0] != NULL' and a SIGSEGV, tsp_ring and the reduce_scatter +
 * allgatherv one on a SIGSEGV (exit 11, or 0 / 1 from Hydra after UCX's
 * backtrace); sched_recursive_doubling and auto return an error. Modes 5 to 8
 * (measured 2026-11-28 at 2 processes, 3 runs each, modes 5 and 7 under
 * tsp_recexch with k=2 and k=3; once at 3 processes): 4.0.2 (once each)
 * aborts on 'memcpy argument memory ranges overlap ... len_=-12' (-24 for the
 * reduce_scatter_block modes), exit 1, the _init calls returning MPI_SUCCESS
 * first; 4.2.1 and 5.0.2 end the job in every run on yaksa's 'unpack_backend:
 * Assertion `0' failed.' on the processes (5.0.2: exit 6 in all 21 runs; 4.2.1:
 * exit 6, or 0, and once in mode 8 a SIGSEGV in MPI_Start and exit 15; mode 5
 * at 3 processes a SIGSEGV at address 0x10 too), MPI_Reduce_scatter_block_init
 * and MPI_Scan_init returning MPI_SUCCESS first; sched_recursive_doubling
 * (scan), sched_recursive_halving (reduce_scatter_block) and auto return an
 * error of class MPI_ERR_OTHER from every call. No upstream report found. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int rank, rc, which = argc > 1 ? atoi(argv[1]) : 1;
  static const char* names[] = {"",
                                "MPI_Ireduce",
                                "MPI_Reduce_init",
                                "MPI_Iallreduce",
                                "MPI_Allreduce_init",
                                "MPI_Ireduce_scatter_block",
                                "MPI_Iscan",
                                "MPI_Reduce_scatter_block_init",
                                "MPI_Scan_init"};
  if (which < 1 || which > 8) which = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int a[3] = {1, 2, 3}, b[3] = {0, 0, 0};
  MPI_Request req = MPI_REQUEST_NULL;
  if (which == 1)
    rc = MPI_Ireduce(a, b, -3, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &req);
  else if (which == 2)
    rc = MPI_Reduce_init(a, b, -3, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  else if (which == 3)
    rc = MPI_Iallreduce(a, b, -3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
  else if (which == 4)
    rc = MPI_Allreduce_init(a, b, -3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  else if (which == 5)
    rc = MPI_Ireduce_scatter_block(a, b, -3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
  else if (which == 6)
    rc = MPI_Iscan(a, b, -3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
  else if (which == 7)
    rc = MPI_Reduce_scatter_block_init(a, b, -3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                                       &req);
  else
    rc = MPI_Scan_init(a, b, -3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  int cls = MPI_SUCCESS;
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  printf("rank %d: %s with count -3 returned %s (class %d)\n", rank, names[which],
         rc == MPI_SUCCESS ? "MPI_SUCCESS" : "an error", cls);
  int persistent = which == 2 || which == 4 || which == 7 || which == 8;
  if (persistent && rc == MPI_SUCCESS) { /* accepted: started once, as a program would */
    fflush(stdout);
    rc = MPI_Start(&req);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    printf("rank %d: MPI_Start / MPI_Wait returned %s\n", rank,
           rc == MPI_SUCCESS ? "MPI_SUCCESS" : "an error");
    if (req != MPI_REQUEST_NULL) MPI_Request_free(&req);
    rc = MPI_SUCCESS; /* the erroneous init was accepted */
  }
  MPI_Finalize();
  return rc == MPI_SUCCESS ? 2 : 0;
}
