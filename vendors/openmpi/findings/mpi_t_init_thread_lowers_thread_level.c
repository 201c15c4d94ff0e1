/* Open MPI 4.1.4: initializing the tools interface at a lower thread level
   than the MPI one (MPI_T_init_thread(MPI_THREAD_SINGLE) in a process that
   MPI_Init_thread gave MPI_THREAD_MULTIPLE) lowers the MPI thread level of
   the whole process: MPI_Query_thread reports MPI_THREAD_SINGLE afterwards,
   and (open-mpi/ompi#14164) the library stops locking for threads, so a
   program whose threads call MPI concurrently, and that reads an MPI_T
   variable once (as a tool or a library may), runs unprotected.
   MPI-4.1 11.6.2: MPI_QUERY_THREAD reports the level MPI_INIT_THREAD
   returned; 15.3.4: the MPI_T level concerns the tools routines only.
   Run: mpiexec -n 1 ./a.out   Exit status 0 when the level is unchanged. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int provided = -1, tools = -1, after = -1;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_T_init_thread(MPI_THREAD_SINGLE, &tools);
  MPI_Query_thread(&after);
  printf(
      "MPI_Init_thread gave %d; after MPI_T_init_thread(MPI_THREAD_SINGLE) (it gave %d), "
      "MPI_Query_thread reports %d\n",
      provided, tools, after);
  MPI_T_finalize();
  MPI_Finalize();
  return after == provided ? 0 : 1;
}
