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
 *   mpiexec.mpich -n 2 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_REDUCE_SCATTER_BLOCK_INTRA_ALGORITHM noncommutative \
 *       -genv MPIR_CVAR_COLLECTIVE_FALLBACK print ./repro value-index minloc
 *
 * Further arguments: "value-index" takes the pair type from
 * MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT) (MPI-4.1 Section 6.9.4:
 * the library returns its predefined MPI_DOUBLE_INT) instead of naming
 * MPI_DOUBLE_INT (a library without the routine, MPI-4.0, prints a note and
 * exits 0); "minloc" uses MPI_MINLOC (the minimum of a block is at rank 0).
 * The arguments combine in any order.
 *
 * Exits 0 when every process receives the right (value, index) pair, 1
 * otherwise, 2 after 30 s of hanging. Without the variables MPICH 4.0.2
 * passes. MPICH 4.2.1 and 5.0.2 (measured 2026-11-28, one run of each of
 * "value-index minloc" and "value-index", blocking and "nonblocking", at 2,
 * 3 and 4 processes; 4.2.1 also without "value-index"): MPI_Type_get_value_index
 * gives MPI_DOUBLE_INT, and the results are wrong at 2 and 4 processes
 * (rank 1 receives e.g. (9.95996e-316, index 1076101120), exit 1), right
 * at 3, where the library prints "Reduce_scatter_block noncommutative cannot
 * be applied" (or "Ireduce_scatter_block sched_noncommutative ...") and
 * falls back to an algorithm that is right. 4.0.2 has no
 * MPI_Type_get_value_index ("value-index" prints a note). No upstream report
 * found. */
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
  int nonblocking = 0, value_index = 0, minloc = 0;
  for (int a = 1; a < argc; ++a) {
    nonblocking |= strcmp(argv[a], "nonblocking") == 0;
    value_index |= strcmp(argv[a], "value-index") == 0;
    minloc |= strcmp(argv[a], "minloc") == 0;
  }
  MPI_Datatype pair = MPI_DOUBLE_INT;
  const MPI_Op op = minloc ? MPI_MINLOC : MPI_MAXLOC;
  if (value_index) {
#if MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
    MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &pair);
    if (rank == 0)
      printf("MPI_Type_get_value_index gave %s\n",
             pair == MPI_DOUBLE_INT ? "MPI_DOUBLE_INT" : "another handle");
#else
    if (rank == 0) printf("note: this library has no MPI_Type_get_value_index (MPI-4.1)\n");
    MPI_Finalize();
    return 0;
#endif
  }
  /* Block b, rank r: value 10*b + r, index 100*r + b; the maximum of block b
   * is at the last rank, its minimum at rank 0. */
  struct double_int send[16], recv = {-1.0, -1};
  for (int b = 0; b < size && b < 16; ++b)
    send[b].value = 10.0 * b + rank, send[b].index = 100 * rank + b;
  if (nonblocking) {
    MPI_Request req;
    MPI_Ireduce_scatter_block(send, &recv, 1, pair, op, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  } else {
    MPI_Reduce_scatter_block(send, &recv, 1, pair, op, MPI_COMM_WORLD);
  }
  const int at = minloc ? 0 : size - 1;
  const double want_value = 10.0 * rank + at;
  const int want_index = 100 * at + rank;
  int ok = recv.value == want_value && recv.index == want_index;
  if (!ok)
    printf("rank %d: expected (%g, index %d), got (%g, index %d)\n", rank, want_value, want_index,
           recv.value, recv.index);
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0 && all)
    printf("every process received the %s of its block and its index\n",
           minloc ? "minimum" : "maximum");
  MPI_Finalize();
  return all ? 0 : 1;
}
