/* Finding: MPI_T_finalize called once more than MPI_T_init_thread returns
 * MPI_SUCCESS; after the tools interface is initialized and finalized again,
 * MPI_Finalize aborts the job ("Assertion failed in file src/util/mpir_pmi.c
 * at line 456: 0"). The extra call is allowed and must return an error code
 * (MPI_T_ERR_NOT_INITIALIZED; MPICH's own manual page: "Calling it more
 * times returns a corresponding error code"). ordo's threads check closes
 * the tools interface this way (it calls MPI_T_finalize until it fails, then
 * initializes it at a lower thread level and finalizes it): the job then
 * dies in MPI_Finalize after every case passed.
 *
 *   mpicc.mpich mpi_t_extra_finalize_breaks_mpi_finalize.c -o repro
 *   mpiexec.mpich -n 2 ./repro
 *
 * Exits 0 when the extra MPI_T_finalize returns an error code and
 * MPI_Finalize returns, 1 when the extra call returns MPI_SUCCESS and
 * MPI_Finalize returns; the abort ends the job with another non-zero code.
 * MPICH 5.0.2 (Debian unstable): the extra call returns MPI_SUCCESS and
 * MPI_Finalize aborts at 2 processes; 4.0.2 and 4.2.1 return error code 60
 * and exit 0. No upstream report found. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int provided, tools, rank;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_T_init_thread(provided, &tools);
  MPI_T_finalize();                /* balanced: the interface is no longer initialized */
  const int rc = MPI_T_finalize(); /* one more than MPI_T_init_thread */
  if (rank == 0)
    printf("the extra MPI_T_finalize returned %s (%d)\n",
           rc == MPI_SUCCESS ? "MPI_SUCCESS" : "an error code", rc);
  MPI_T_init_thread(MPI_THREAD_SINGLE, &tools); /* initialized again */
  MPI_T_finalize();
  fflush(stdout);
  MPI_Finalize();
  if (rank == 0) printf("MPI_Finalize returned\n");
  return rc == MPI_SUCCESS ? 1 : 0;
}
