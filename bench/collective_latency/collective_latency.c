/*
 * collective_latency: time MPI reduction collectives on MPI_COMM_WORLD.
 *
 * Usage: mpiexec -n P ./collective_latency [iterations]
 *
 * For each routine (MPI_Allreduce, MPI_Reduce, MPI_Scan,
 * MPI_Reduce_scatter_block) and each count (1 and 1024 MPI_INT, MPI_SUM)
 * it runs a few warm-up calls, then `iterations` timed calls, and rank 0
 * prints one line:
 *   <routine> count=<n> ranks=<P> iters=<k> us_per_call=<max over ranks>
 * The default iteration count (40) keeps an 8-rank run on an
 * oversubscribed 2-core machine (~25 ms per call) well under 20 s.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROUTINE_ALLREDUCE, ROUTINE_REDUCE, ROUTINE_SCAN, ROUTINE_REDSCAT, ROUTINE_COUNT };

static const char* const routine_names[ROUTINE_COUNT] = {"MPI_Allreduce", "MPI_Reduce", "MPI_Scan",
                                                         "MPI_Reduce_scatter_block"};

static void call_once(int routine, const int* send, int* recv, int count, MPI_Comm comm) {
  switch (routine) {
    case ROUTINE_ALLREDUCE:
      MPI_Allreduce(send, recv, count, MPI_INT, MPI_SUM, comm);
      break;
    case ROUTINE_REDUCE:
      MPI_Reduce(send, recv, count, MPI_INT, MPI_SUM, 0, comm);
      break;
    case ROUTINE_SCAN:
      MPI_Scan(send, recv, count, MPI_INT, MPI_SUM, comm);
      break;
    case ROUTINE_REDSCAT:
      /* send holds count * size elements, each rank receives count. */
      MPI_Reduce_scatter_block(send, recv, count, MPI_INT, MPI_SUM, comm);
      break;
    default:
      break;
  }
}

int main(int argc, char** argv) {
  int iterations = 40;
  const int warmup = 5;
  const int counts[2] = {1, 1024};
  int rank = 0;
  int size = 1;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  if (argc > 1) {
    iterations = atoi(argv[1]);
    if (iterations < 1) {
      if (rank == 0) {
        fprintf(stderr, "usage: %s [iterations>=1]\n", argv[0]);
      }
      MPI_Finalize();
      return 2;
    }
  }

  const size_t max_elems = (size_t)counts[1] * (size_t)size;
  int* send = malloc(max_elems * sizeof *send);
  int* recv = malloc(max_elems * sizeof *recv);
  if (send == NULL || recv == NULL) {
    fprintf(stderr, "rank %d: out of memory\n", rank);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (size_t i = 0; i < max_elems; ++i) {
    send[i] = rank + (int)(i % 7);
  }
  memset(recv, 0, max_elems * sizeof *recv);

  for (int r = 0; r < ROUTINE_COUNT; ++r) {
    for (int c = 0; c < 2; ++c) {
      const int count = counts[c];
      for (int i = 0; i < warmup; ++i) {
        call_once(r, send, recv, count, MPI_COMM_WORLD);
      }
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      for (int i = 0; i < iterations; ++i) {
        call_once(r, send, recv, count, MPI_COMM_WORLD);
      }
      const double local = (MPI_Wtime() - t0) * 1e6 / iterations;
      double slowest = 0.0;
      MPI_Reduce(&local, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
      if (rank == 0) {
        printf("%s count=%d ranks=%d iters=%d us_per_call=%.2f\n", routine_names[r], count, size,
               iterations, slowest);
        fflush(stdout);
      }
    }
  }

  free(send);
  free(recv);
  MPI_Finalize();
  return 0;
}
