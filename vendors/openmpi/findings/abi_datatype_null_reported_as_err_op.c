/* Finding (DETECT): Open MPI 6.0.0rc2 reports MPI_DATATYPE_NULL as the
 * datatype of MPI_Reduce_local and MPI_Allreduce with an error of class
 * MPI_ERR_OP ("invalid reduce operation") instead of MPI_ERR_TYPE, the
 * standard's class of an invalid datatype argument (through the MPI-5.0
 * standard ABI the classes are the header's fixed values, MPI-5.0 22.1.1:
 * MPI_ERR_TYPE 3, MPI_ERR_OP 10). The error is detected; its class is the
 * op's. Found through the ABI (libmpi_abi.so.1); Open MPI's own libmpi.so of
 * the same release returns the same class.
 *
 * Through Open MPI's own header (ordo findings --run builds and runs this):
 *   mpicc.openmpi abi_datatype_null_reported_as_err_op.c -o repro
 *   mpiexec.openmpi -n 1 ./repro
 *   mpiexec.openmpi -n 2 ./repro allreduce    # MPI_Allreduce in place of MPI_Reduce_local
 * Through the ABI (the standard header; libmpi_abi.so.1 chosen at launch):
 *   cc -I/usr/lib/x86_64-linux-gnu/openmpi/include/standard_abi \
 *     abi_datatype_null_reported_as_err_op.c -o repro /usr/lib/x86_64-linux-gnu/libmpi_abi.so.1
 *   mkdir run-openmpi; ln -s /usr/lib/x86_64-linux-gnu/libmpi_abi_openmpi.so.1.0.0 \
 *     run-openmpi/libmpi_abi.so.1
 *   LD_LIBRARY_PATH=$PWD/run-openmpi mpiexec.openmpi -x LD_LIBRARY_PATH -n 2 ./repro allreduce
 *
 * Exits 0 when the call returns an error of class MPI_ERR_TYPE, 2 when it
 * returns MPI_SUCCESS, 3 for another class (Open MPI 6.0.0rc2: 3). */
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
  return rc == MPI_SUCCESS ? 2 : cls == MPI_ERR_TYPE ? 0 : 3;
}
