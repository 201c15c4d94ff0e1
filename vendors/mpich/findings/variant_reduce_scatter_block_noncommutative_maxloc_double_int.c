/* Finding (algorithm variants mpich.reduce_scatter_block.intra.noncommutative
 * and mpich.ireduce_scatter_block.intra.sched_noncommutative only):
 * MPI_Reduce_scatter_block with the predefined MPI_MAXLOC on MPI_DOUBLE_INT
 * (a pair type with padding: 12 bytes of data, extent 16), one element per
 * block, on 2 processes, gives rank 1 garbage instead of the maximum and its
 * index (MPI-4.1 Sections 6.9.4 and 6.10.1); in ordo's sweep larger counts
 * (7, 9) crashed (SIGSEGV, "double free or corruption"). The default selection never runs this
 * algorithm for a commutative op, so only the forced variant reaches it with
 * MPI_MAXLOC; it is the same fault as reduce_scatter_block_noncommutative_padded_type.c
 * (the algorithm mishandles a datatype whose extent exceeds its size),
 * reached here without a user-defined op. The nonblocking and persistent
 * forms under sched_noncommutative fail the same way ("nonblocking" argument).
 *
 * MPICH reads the forcing variables at MPI_Init from the environment:
 *
 *   mpicc.mpich variant_reduce_scatter_block_noncommutative_maxloc_double_int.c -o repro
 *   mpiexec.mpich -n 2 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_REDUCE_SCATTER_BLOCK_INTRA_ALGORITHM noncommutative \
 *       -genv MPIR_CVAR_COLLECTIVE_FALLBACK print ./repro
 *   mpiexec.mpich -n 2 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_IREDUCE_SCATTER_BLOCK_INTRA_ALGORITHM sched_noncommutative \
 *       -genv MPIR_CVAR_COLLECTIVE_FALLBACK print ./repro nonblocking
 *
 * Exits 0 when every process receives the right (value, index) pair, 1
 * otherwise, 2 after 30 s of hanging. Without the variables MPICH 4.0.2
 * passes. No upstream report found. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "hang: MPI_(I)reduce_scatter_block did not complete in 30 s\n";
  write(2, msg, sizeof msg - 1);
  _exit(2);
}

struct double_int {
  double value;
  int index;
};

int main(int argc, char** argv) {
  signal(SIGALRM, on_alarm);
  alarm(30);
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int nonblocking = argc > 1 && strcmp(argv[1], "nonblocking") == 0;
  /* Block b, rank r: value 10*b + r, index 100*r + b; the maximum of block b
   * is at the last rank. */
  struct double_int send[16], recv = {-1.0, -1};
  for (int b = 0; b < size && b < 16; ++b)
    send[b].value = 10.0 * b + rank, send[b].index = 100 * rank + b;
  if (nonblocking) {
    MPI_Request req;
    MPI_Ireduce_scatter_block(send, &recv, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  } else {
    MPI_Reduce_scatter_block(send, &recv, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
  }
  const double want_value = 10.0 * rank + (size - 1);
  const int want_index = 100 * (size - 1) + rank;
  int ok = recv.value == want_value && recv.index == want_index;
  if (!ok)
    printf("rank %d: expected (%g, index %d), got (%g, index %d)\n", rank, want_value, want_index,
           recv.value, recv.index);
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0 && all) printf("every process received the maximum of its block and its index\n");
  MPI_Finalize();
  return all ? 0 : 1;
}
