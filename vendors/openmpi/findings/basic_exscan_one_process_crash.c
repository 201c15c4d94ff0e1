/* Finding: Open MPI 4.1.4's coll/basic component ends the job with a
 * segmentation fault in MPI_Exscan on a communicator of one process
 * (MPI_COMM_SELF here; a one-process group of MPI_Comm_split the same),
 * where the call has nothing to combine and must return (MPI-4.1 6.11.2:
 * the receive buffer of process 0 is undefined). It shows when the
 * collective components are limited to basic (the variant openmpi.coll.basic:
 * OMPI_MCA_coll=basic,libnbc, so that coll/self does not serve one-process
 * communicators); the library's own choice is right.
 *
 *   mpicc.openmpi basic_exscan_one_process_crash.c -o repro
 *   mpiexec.openmpi --allow-run-as-root --oversubscribe \
 *     --mca coll basic,libnbc -n 1 ./repro
 *
 * Exits 0 when MPI_Exscan returns; a segfault is the fault (at 1 and 2
 * processes here). Upstream: none found. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int in[3] = {1, 2, 3}, out[3] = {-1, -1, -1};
  const int rc = MPI_Exscan(in, out, 3, MPI_INT, MPI_SUM, MPI_COMM_SELF);
  printf("MPI_Exscan on MPI_COMM_SELF returned %s\n",
         rc == MPI_SUCCESS ? "MPI_SUCCESS" : "an error");
  MPI_Finalize();
  return 0;
}
