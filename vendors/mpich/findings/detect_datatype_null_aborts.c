/* Finding (DETECT): MPICH 5.0.2 aborts the job ("Abort(1) on node 0:
 * Internal error", after "Assertion failed in file ./src/include/
 * mpir_datatype.h ...: dt_ptr") when the datatype of a reduction is
 * MPI_DATATYPE_NULL, in the blocking, nonblocking and persistent forms of
 * every reduction routine, although MPI_ERRORS_RETURN is set, instead of
 * returning an error code. MPI_DATATYPE_NULL is an erroneous argument
 * (MPI-4.1 and MPI-5.0 Section 2.5.1; detecting it is not required, but MPICH validates
 * handles and MPICH 4.0.2 and 4.2.1 report it). The MPI_Reduce_local and
 * MPI_Allreduce cases through the MPI-5.0 ABI are abi_datatype_null_aborts.c.
 *
 *   mpicc.mpich detect_datatype_null_aborts.c -o repro
 *   mpiexec.mpich -n 2 ./repro reduce
 *
 * Argument: the routine, one of reduce, ireduce, reduce_init, allreduce,
 * iallreduce, allreduce_init, reduce_scatter, ireduce_scatter,
 * reduce_scatter_init, reduce_scatter_block, ireduce_scatter_block,
 * reduce_scatter_block_init, scan, iscan, scan_init, exscan, iexscan,
 * exscan_init, reduce_local (default reduce). Exits 0 when the call returns
 * an error code, 2 when it returns MPI_SUCCESS; the abort ends the job with a
 * non-zero code (Hydra: 1, or from 3 processes on at times 9 with only
 * "Killed (signal 9)"). Measured at -n 2: MPICH 5.0.2 aborts in each of the
 * 19 routines; MPICH 4.0.2 and 4.2.1 return an error code (reduce,
 * iallreduce, scan_init); 5.0.2 at -n 3, 5, 6 (reduce, iallreduce,
 * scan_init): aborts, exit 9 once (-n 5 reduce). No upstream report found. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  int rank, size, rc = MPI_SUCCESS;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  const char* name = argc > 1 ? argv[1] : "reduce";
  const MPI_Datatype t = MPI_DATATYPE_NULL;
  const MPI_Comm c = MPI_COMM_WORLD;
  const MPI_Info i = MPI_INFO_NULL;
  int a[64] = {0}, b[64] = {0}, counts[64];
  for (int k = 0; k < 64; ++k) counts[k] = 1;
  MPI_Request req = MPI_REQUEST_NULL;
  int persistent = 0;
  if (strcmp(name, "ireduce") == 0) {
    rc = MPI_Ireduce(a, b, 1, t, MPI_SUM, 0, c, &req);
  } else if (strcmp(name, "reduce_init") == 0) {
    rc = MPI_Reduce_init(a, b, 1, t, MPI_SUM, 0, c, i, &req), persistent = 1;
  } else if (strcmp(name, "allreduce") == 0) {
    rc = MPI_Allreduce(a, b, 1, t, MPI_SUM, c);
  } else if (strcmp(name, "iallreduce") == 0) {
    rc = MPI_Iallreduce(a, b, 1, t, MPI_SUM, c, &req);
  } else if (strcmp(name, "allreduce_init") == 0) {
    rc = MPI_Allreduce_init(a, b, 1, t, MPI_SUM, c, i, &req), persistent = 1;
  } else if (strcmp(name, "reduce_scatter") == 0) {
    rc = MPI_Reduce_scatter(a, b, counts, t, MPI_SUM, c);
  } else if (strcmp(name, "ireduce_scatter") == 0) {
    rc = MPI_Ireduce_scatter(a, b, counts, t, MPI_SUM, c, &req);
  } else if (strcmp(name, "reduce_scatter_init") == 0) {
    rc = MPI_Reduce_scatter_init(a, b, counts, t, MPI_SUM, c, i, &req), persistent = 1;
  } else if (strcmp(name, "reduce_scatter_block") == 0) {
    rc = MPI_Reduce_scatter_block(a, b, 1, t, MPI_SUM, c);
  } else if (strcmp(name, "ireduce_scatter_block") == 0) {
    rc = MPI_Ireduce_scatter_block(a, b, 1, t, MPI_SUM, c, &req);
  } else if (strcmp(name, "reduce_scatter_block_init") == 0) {
    rc = MPI_Reduce_scatter_block_init(a, b, 1, t, MPI_SUM, c, i, &req), persistent = 1;
  } else if (strcmp(name, "scan") == 0) {
    rc = MPI_Scan(a, b, 1, t, MPI_SUM, c);
  } else if (strcmp(name, "iscan") == 0) {
    rc = MPI_Iscan(a, b, 1, t, MPI_SUM, c, &req);
  } else if (strcmp(name, "scan_init") == 0) {
    rc = MPI_Scan_init(a, b, 1, t, MPI_SUM, c, i, &req), persistent = 1;
  } else if (strcmp(name, "exscan") == 0) {
    rc = MPI_Exscan(a, b, 1, t, MPI_SUM, c);
  } else if (strcmp(name, "iexscan") == 0) {
    rc = MPI_Iexscan(a, b, 1, t, MPI_SUM, c, &req);
  } else if (strcmp(name, "exscan_init") == 0) {
    rc = MPI_Exscan_init(a, b, 1, t, MPI_SUM, c, i, &req), persistent = 1;
  } else if (strcmp(name, "reduce_local") == 0) {
    rc = MPI_Reduce_local(a, b, 1, t, MPI_SUM);
  } else {
    rc = MPI_Reduce(a, b, 1, t, MPI_SUM, 0, c);
  }
  if (rc == MPI_SUCCESS && req != MPI_REQUEST_NULL) {
    if (persistent) rc = MPI_Start(&req);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (persistent) MPI_Request_free(&req);
  }
  printf("rank %d of %d: MPI_%s with MPI_DATATYPE_NULL returned %s\n", rank, size, name,
         rc == MPI_SUCCESS ? "MPI_SUCCESS (accepted)" : "an error code (reported)");
  MPI_Finalize();
  return rc == MPI_SUCCESS ? 2 : 0;
}
