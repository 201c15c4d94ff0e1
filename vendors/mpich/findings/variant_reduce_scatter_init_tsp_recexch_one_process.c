/* Finding (algorithm variants mpich.ireduce_scatter.intra.tsp_recexch and
 * mpich.ireduce_scatter_block.intra.tsp_recexch only; ./repro b: the block form):
 * forced to the transport-based recursive-exchange algorithm, MPICH 4.0.2's
 * MPI_Reduce_scatter_init on a one-process communicator (MPI_COMM_SELF, a
 * group of one of a split or of MPI_Comm_create_group) aborts in the
 * initialization or its first start ("Assertion failed in file
 * src/mpi/coll/transports/gentran/gentran_utils.c at line 431:
 * in_vtx != NULL"), with a separate send buffer or MPI_IN_PLACE. On one
 * process the result is the process's own input (MPI-4.1 6.10.2; 6.13: the
 * persistent form has the blocking form's results).
 * MPI_Ireduce_scatter on the same communicator, the library's own choice of
 * algorithm and sched_recursive_halving are right; larger communicators too.
 *
 *   mpicc.mpich variant_reduce_scatter_init_tsp_recexch_one_process.c -o repro
 *   MPIR_CVAR_DEVICE_COLLECTIVES=none MPIR_CVAR_IREDUCE_SCATTER_INTRA_ALGORITHM=tsp_recexch \
 *     mpiexec.mpich -n 2 ./repro        # ./repro i: MPI_IN_PLACE; ./repro n: MPI_Ireduce_scatter
 *
 * Exits 0 when every process received its 7 ints, 1 on a wrong value; the
 * abort ends the job. No upstream report found. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  const char mode = argc > 1 ? argv[1][0] : 's';
  int rank, ok = 1, counts[1] = {7}, a[7], b[7];
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (int i = 0; i < 7; ++i) a[i] = b[i] = rank * 100 + i;
  MPI_Request req;
  if (mode == 'n')
    MPI_Ireduce_scatter(a, b, counts, MPI_INT, MPI_SUM, MPI_COMM_SELF, &req);
  else if (mode == 'b')
    MPI_Reduce_scatter_block_init(a, b, 7, MPI_INT, MPI_SUM, MPI_COMM_SELF, MPI_INFO_NULL, &req);
  else
    MPI_Reduce_scatter_init(mode == 'i' ? MPI_IN_PLACE : a, b, counts, MPI_INT, MPI_SUM,
                            MPI_COMM_SELF, MPI_INFO_NULL, &req);
  if (mode != 'n') MPI_Start(&req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  for (int i = 0; i < 7; ++i)
    if (b[i] != rank * 100 + i) {
      printf("rank %d element %d: expected %d, got %d\n", rank, i, rank * 100 + i, b[i]);
      ok = 0;
      break;
    }
  if (mode != 'n') MPI_Request_free(&req);
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0 && all) printf("every process received its block\n");
  MPI_Finalize();
  return all ? 0 : 1;
}
