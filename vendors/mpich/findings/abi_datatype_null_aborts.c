/* Finding (DETECT): MPICH 5.0.2 aborts in MPI_Reduce_local and MPI_Allreduce
 * when the datatype is MPI_DATATYPE_NULL ("Assertion failed in file
 * ./src/include/mpir_datatype.h at line 800: dt_ptr", "Abort(1) on node 0:
 * Internal error") instead of returning an error under MPI_ERRORS_RETURN.
 * MPI_DATATYPE_NULL is an erroneous argument (MPI-4.1 2.5.1); detecting it is
 * not required, but MPICH validates handles: MPI_OP_NULL in the same calls
 * is reported (class MPI_ERR_OP), and MPICH 4.0.2 reports MPI_DATATYPE_NULL
 * (with class MPI_ERR_OP). Found through the MPI-5.0 standard ABI
 * (libmpi_abi.so.1); MPICH's own libmpich.so.12 of the same release aborts
 * the same way.
 *
 * Through MPICH's own header (ordo findings --run builds and runs this):
 *   mpicc.mpich abi_datatype_null_aborts.c -o repro
 *   mpiexec.mpich -n 1 ./repro
 *   mpiexec.mpich -n 2 ./repro allreduce    # MPI_Allreduce in place of MPI_Reduce_local
 * Through the ABI (the standard header; libmpi_abi.so.1 chosen at launch):
 *   cc -I/usr/lib/x86_64-linux-gnu/mpi_abi_mpich/include abi_datatype_null_aborts.c \
 *     -o repro /usr/lib/x86_64-linux-gnu/libmpi_abi.so.1
 *   mkdir run-mpich; ln -s /usr/lib/x86_64-linux-gnu/libmpi_abi_mpich.so.1.0.0 \
 *     run-mpich/libmpi_abi.so.1
 *   LD_LIBRARY_PATH=$PWD/run-mpich mpiexec.mpich -n 2 ./repro allreduce
 *
 * Exits 0 when the call returns an error (whatever its class, printed: this
 * finding is the abort), 2 when it returns MPI_SUCCESS; the abort ends the
 * job with exit code 1. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  const int allreduce = argc > 1 && strcmp(argv[1], "allreduce") == 0;
  int in[3] = {1, 2, 3}, inout[3] = {4, 5, 6}, cls = -1, rc;
  /* the op checked first: reported */
  rc = allreduce ? MPI_Allreduce(in, inout, 3, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD)
                 : MPI_Reduce_local(in, inout, 3, MPI_INT, MPI_OP_NULL);
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  printf("%s(MPI_OP_NULL): class %d (MPI_ERR_OP is %d)\n",
         allreduce ? "MPI_Allreduce" : "MPI_Reduce_local", cls, MPI_ERR_OP);
  fflush(stdout);
  cls = -1;
  rc = allreduce ? MPI_Allreduce(in, inout, 3, MPI_DATATYPE_NULL, MPI_SUM, MPI_COMM_WORLD)
                 : MPI_Reduce_local(in, inout, 3, MPI_DATATYPE_NULL, MPI_SUM);
  if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
  printf("%s(MPI_DATATYPE_NULL): class %d (MPI_ERR_TYPE is %d)\n",
         allreduce ? "MPI_Allreduce" : "MPI_Reduce_local", cls, MPI_ERR_TYPE);
  MPI_Finalize();
  return rc == MPI_SUCCESS ? 2 : 0;
}
