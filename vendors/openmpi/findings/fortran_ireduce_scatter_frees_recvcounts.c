/* Finding (MUST): the Fortran bindings of MPI_IREDUCE_SCATTER and
 * MPI_REDUCE_SCATTER_INIT treat the caller's recvcounts array as their own
 * temporary. The mpif.h wrappers (which the mpi and mpi_f08 modules call)
 * store recvcounts in the request's list of arrays to free() when the
 * request is done, although no copy was made (a default INTEGER is a C
 * int, so it is the caller's array), and they store it without checking
 * what request they got. Three ways it shows:
 *  - nonblocking (default): MPI_IREDUCE_SCATTER with a user-defined op (or
 *    a derived datatype): the callback that releases the retained op frees
 *    the caller's array in MPI_Wait; the owner's own free is then a double
 *    free (glibc "free(): double free detected in tcache 2").
 *  - later: the same call with MPI_SUM on MPI_INTEGER installs no callback;
 *    the stale pointer stays in the request, which goes back to libnbc's
 *    free list, and the next nonblocking reduction with a user op that gets
 *    it (here a C MPI_Iallreduce) frees the array again in its MPI_Wait
 *    (under ompi_coll_libnbc_progress), or a block reused meanwhile.
 *  - persistent (run it at 1 process): MPI_REDUCE_SCATTER_INIT with
 *    MPI_IN_PLACE at one process gets libnbc's persistent no-op request, a
 *    plain ompi_request_t, and the store writes past its end: the heap is
 *    damaged ("malloc(): corrupted top size"). Every recvcount 0 does the
 *    same at any size (fortran_reduce_scatter_heap_corruption.c).
 * The calls are valid (MPI-4.1 and MPI-5.0 Sections 6.10.2, 6.12 and 6.13:
 * the recvcounts array is the caller's, which by Section 6.12 only has to
 * stay unmodified until the operation completes). Read in the v5.0.7 source:
 * ompi/mpi/fortran/mpif-h/ireduce_scatter_f.c and reduce_scatter_init_f.c
 * set data.release_arrays[0] to recvcounts (iallgatherv_f.c and the others
 * do so only for a converted copy), and release_objs_callback
 * (ompi/mca/coll/base/coll_base_util.c) free()s the entries. This program
 * calls the binding's symbols from C with Fortran handles, as a Fortran
 * program does.
 *
 *   mpicc.openmpi fortran_ireduce_scatter_frees_recvcounts.c -o repro -lmpi_mpifh
 *   mpiexec.openmpi --oversubscribe -n 2 ./repro
 *   mpiexec.openmpi --oversubscribe -n 2 ./repro later
 *   mpiexec.openmpi --oversubscribe -n 1 ./repro persistent
 *
 * Exits 0 when every call completes and the program's frees pass (and for
 * persistent on a release without MPI_REDUCE_SCATTER_INIT, which it says);
 * the bug ends the job with a glibc abort (exit code 134, signal 6) or, for
 * persistent, a glibc message after which the process hangs (until a
 * timeout: exit code 124 under timeout(1)). Measured, 3 runs each, Open MPI
 * 5.0.7 (Debian 13): nonblocking aborts at 2 and 3 processes (in the
 * program's free) and exits 0 at 1 (a one-process call returns a completed
 * request: nothing stored); later aborts at 2 and 3 processes in the
 * MPI_Wait of the MPI_Iallreduce and exits 0 at 1; persistent at 1 process
 * prints "malloc(): corrupted top size" and hangs (124), and exits 0 at 2
 * (libnbc's own request). 6.0.0rc2 (Debian unstable) and 4.1.4 (Debian 12):
 * nonblocking and later exit 0 at 2 processes; persistent exits 0 at 1 on
 * 6.0.0rc2, and 4.1.4 has no MPI_REDUCE_SCATTER_INIT (exit 0, saying so).
 * Fixed on main by open-mpi/ompi#13529 (backported to v6.0.x as #14269),
 * not on v5.0.x. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The mpif.h bindings (libmpi_mpifh); 4.1.4 has no MPI_REDUCE_SCATTER_INIT. */
void mpi_ireduce_scatter_(void* sendbuf, void* recvbuf, MPI_Fint* recvcounts, MPI_Fint* datatype,
                          MPI_Fint* op, MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierror);
void mpi_reduce_scatter_init_(void* sendbuf, void* recvbuf, MPI_Fint* recvcounts,
                              MPI_Fint* datatype, MPI_Fint* op, MPI_Fint* comm, MPI_Fint* info,
                              MPI_Fint* request, MPI_Fint* ierror) __attribute__((weak));
/* The Fortran MPI_IN_PLACE, as the binding recognizes it. */
extern int mpi_fortran_in_place_;

static void sum(void* in, void* inout, int* len, MPI_Datatype* dt) {
  (void)dt;
  for (int i = 0; i < *len; ++i) ((int*)inout)[i] += ((int*)in)[i];
}

int main(int argc, char** argv) {
  int rank, size;
  const char* mode = argc > 1 ? argv[1] : "nonblocking";
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Op user;
  MPI_Op_create(sum, 1, &user);
  MPI_Fint* counts = malloc(size * sizeof(MPI_Fint)); /* the program's own array */
  int* send = malloc(size * sizeof(int));
  int recv = 0;
  for (int i = 0; i < size; ++i) counts[i] = 1, send[i] = i + 1;
  int later = !strcmp(mode, "later");
  MPI_Fint type = MPI_Type_c2f(MPI_INTEGER), op = MPI_Op_c2f(later ? MPI_SUM : user);
  MPI_Fint comm = MPI_Comm_c2f(MPI_COMM_WORLD), info = MPI_Info_c2f(MPI_INFO_NULL);
  MPI_Fint freq, ierr;
  MPI_Request req;
  if (!strcmp(mode, "persistent")) {
    if (!mpi_reduce_scatter_init_) {
      if (rank == 0) printf("this release has no MPI_REDUCE_SCATTER_INIT: nothing to check\n");
      MPI_Finalize();
      return 0;
    }
    for (int rep = 0; rep < 20; ++rep) {
      mpi_reduce_scatter_init_(&mpi_fortran_in_place_, send, counts, &type, &op, &comm, &info,
                               &freq, &ierr);
      if (ierr != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 2);
      req = MPI_Request_f2c(freq);
      MPI_Start(&req);
      MPI_Wait(&req, MPI_STATUS_IGNORE);
      MPI_Request_free(&req);
      free(malloc(24 + 8 * rep)); /* the program's own allocations go on */
    }
    printf("rank %d: 20 persistent in-place reduce-scatters completed\n", rank);
  } else {
    mpi_ireduce_scatter_(send, &recv, counts, &type, &op, &comm, &freq, &ierr);
    if (ierr != MPI_SUCCESS) MPI_Abort(MPI_COMM_WORLD, 2);
    req = MPI_Request_f2c(freq);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    printf("rank %d: MPI_IREDUCE_SCATTER completed: %d (expected %d); freeing recvcounts\n", rank,
           recv, size * (rank + 1));
  }
  fflush(stdout);
  free(counts); /* a double free if the library has freed it */
  if (later) {
    int a = rank, b = 0;
    MPI_Iallreduce(&a, &b, 1, MPI_INT, user, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE); /* frees the stale recvcounts again */
    printf("rank %d: MPI_Iallreduce with a user op completed: %d\n", rank, b);
  }
  free(send);
  MPI_Op_free(&user);
  MPI_Finalize();
  return 0;
}
