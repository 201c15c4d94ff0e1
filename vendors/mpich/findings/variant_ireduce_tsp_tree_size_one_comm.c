/* Finding (algorithm variant mpich.ireduce.intra.tsp_tree, and tsp_ring,
 * only): MPI_Reduce_init on a communicator of one process (here
 * MPI_COMM_SELF) aborts inside the library with
 *   Assertion failed in file src/mpi/coll/ireduce/ireduce_tsp_tree.c
 *   at line 81: !(is_tree_root && is_tree_leaf)
 * instead of giving the root its own contribution (MPI-4.1 Sections 6.9.1
 * and 6.13: a persistent reduce has the semantics of MPI_Reduce; a
 * communicator of one process is a valid argument). The nonblocking
 * MPI_Ireduce on the same communicator works. ordo met it in
 * Buffers.ranks_other_than_the_root_may_pass_a_null_receive_buffer, whose
 * "self" and "odd-even" communicators have one process; the null receive
 * buffer is not involved (a one-process communicator has only the root).
 *
 * MPICH reads the forcing variables at MPI_Init from the environment:
 *
 *   mpicc.mpich variant_ireduce_tsp_tree_size_one_comm.c -o repro
 *   mpiexec.mpich -n 2 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_IREDUCE_INTRA_ALGORITHM tsp_tree \
 *       -genv MPIR_CVAR_COLLECTIVE_FALLBACK print ./repro
 *   (MPIR_CVAR_IREDUCE_INTRA_ALGORITHM tsp_ring fails the same way)
 *
 * Exits 0 when every process's reduction over MPI_COMM_SELF returns its
 * own values, 1 on a wrong value, 2 after 30 s of hanging; the library's
 * abort ends the job with exit code 1. Without the variables MPICH 4.0.2
 * passes. No upstream report found. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] =
      "hang: MPI_Reduce_init / MPI_Start / MPI_Wait did not complete in 30 s\n";
  write(2, msg, sizeof msg - 1);
  _exit(2);
}

int main(int argc, char** argv) {
  signal(SIGALRM, on_alarm);
  alarm(30);
  int rank;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  enum { N = 6 };
  int send[N], recv[N];
  for (int i = 0; i < N; ++i) send[i] = 100 * rank + i, recv[i] = -1;
  MPI_Request req;
  MPI_Reduce_init(send, recv, N, MPI_INT, MPI_SUM, 0, MPI_COMM_SELF, MPI_INFO_NULL, &req);
  MPI_Start(&req);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  MPI_Request_free(&req);
  int ok = 1;
  for (int i = 0; i < N; ++i)
    if (recv[i] != send[i]) {
      printf("rank %d element %d: expected %d, got %d\n", rank, i, send[i], recv[i]);
      ok = 0;
    }
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0 && all)
    printf("MPI_Reduce_init on MPI_COMM_SELF returned each process's own values\n");
  MPI_Finalize();
  return all ? 0 : 1;
}
