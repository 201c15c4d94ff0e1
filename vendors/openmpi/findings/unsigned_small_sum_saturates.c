/* Finding: MPI_SUM on MPI_UNSIGNED_CHAR / MPI_UINT8_T (and the 16-bit
 * unsigned types) saturates at the type's maximum for vectorised counts
 * instead of wrapping modulo 2^n (MPI-4.1 Section 6.9.2: SUM on the C
 * integer group is the C sum of the values; unsigned arithmetic wraps).
 *
 *   mpicc.openmpi unsigned_small_sum_saturates.c -o repro && ./repro
 *   mpiexec.openmpi -n P ./repro reduce_scatter 16 [RECVCOUNTS...]
 *
 * No argument: MPI_Reduce_local of 200 + 100 on MPI_UNSIGNED_CHAR at
 * counts 1, 2, 4, ..., 64. Exits 0 when it gives 44 on every element, 1
 * otherwise. Open MPI 4.1.4, 5.0.7 and 6.0.0rc2 (op/avx component): 255
 * for counts of 16 and more, 44 below (on this suite's machine, 2026-11-28;
 * an earlier note here said 32).
 *
 * `reduce_scatter BITS [RECVCOUNTS...]` (BITS 8: MPI_UINT8_T, every process
 * giving 200; 16: MPI_UINT16_T, 60000): MPI_Reduce_scatter and
 * MPI_Ireduce_scatter with explicit recvcounts, one per process (the sum is
 * then P x 200 or P x 60000 modulo 2^BITS). With RECVCOUNTS, that one
 * vector; without, a sweep at the job's size: for every total T of
 * elements from 1 to 32 / (BITS / 8), T spread evenly, T on the last
 * process alone, and T spread over every other process (the rest 0). Each
 * line says which elements came out wrong; exits 1 when any did.
 * Measured on Open MPI 4.1.4, 5.0.7 and 6.0.0rc2 alike (the same lines,
 * 2-8 processes, 8- and 16-bit, every line of the sweep):
 * MPI_Ireduce_scatter saturates exactly when the whole send buffer (T x
 * BITS / 8 bytes) is 16 bytes or more, however T is spread, zeros included,
 * at every size from 2; the blocking MPI_Reduce_scatter does so at 5, 6 and
 * 7 processes, while at 2, 3, 4 and 8 it combines blocks or halves of the
 * buffer and some vectors of 16 bytes or more come out right (8-bit [6,5,5]
 * at 3, 16-bit [1,1,1,1,1,1,1,1] at 8). Under 16 bytes every vector is
 * right. E.g. at 7 processes, `reduce_scatter 16 0 2 2 2 0 1 2` (18 bytes)
 * is wrong in both routines and `reduce_scatter 16 0 1 1 1 0 1 2` (12
 * bytes) is right.
 *
 * Upstream: open-mpi/ompi#8045 (closed "wontfix"); see also the discussion
 * in open-mpi/ompi#7419. Excluding the component (OMPI_MCA_op=^avx) is the
 * library's own way around it. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TOTAL 64

static int reduce_local(void) {
  int bad = 0;
  for (int count = 1; count <= 64; count *= 2) {
    unsigned char in[64], inout[64];
    for (int i = 0; i < count; ++i) in[i] = 200, inout[i] = 100;
    MPI_Reduce_local(in, inout, count, MPI_UNSIGNED_CHAR, MPI_SUM);
    for (int i = 0; i < count; ++i)
      if (inout[i] != 44) {
        printf("count %d element %d: 200 + 100 gave %d, expected 44 (mod 256)\n", count, i,
               inout[i]);
        bad = 1;
        break;
      }
  }
  if (!bad) printf("unsigned char sums wrap as they must\n");
  return bad;
}

/* One MPI_Reduce_scatter (nonblocking: MPI_Ireduce_scatter) with these
 * recvcounts; rank 0 prints the vector and how many elements came out
 * wrong (0: right). Returns that number on every process. */
static int one_vector(int bits, const int* recvcounts, int nonblocking) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int total = 0;
  for (int i = 0; i < size; ++i) total += recvcounts[i];
  const MPI_Datatype type = bits == 8 ? MPI_UINT8_T : MPI_UINT16_T;
  const unsigned mine = bits == 8 ? 200u : 60000u;
  const unsigned mask = bits == 8 ? 0xffu : 0xffffu;
  const unsigned expected = (mine * (unsigned)size) & mask;
  uint8_t send8[MAX_TOTAL], recv8[MAX_TOTAL];
  uint16_t send16[MAX_TOTAL], recv16[MAX_TOTAL];
  for (int i = 0; i < MAX_TOTAL; ++i)
    send8[i] = 200, send16[i] = 60000, recv8[i] = 0, recv16[i] = 0;
  void* send = bits == 8 ? (void*)send8 : (void*)send16;
  void* recv = bits == 8 ? (void*)recv8 : (void*)recv16;
  if (nonblocking) {
    MPI_Request req;
    MPI_Ireduce_scatter(send, recv, recvcounts, type, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  } else {
    MPI_Reduce_scatter(send, recv, recvcounts, type, MPI_SUM, MPI_COMM_WORLD);
  }
  int wrong = 0;
  unsigned seen = expected;
  for (int i = 0; i < recvcounts[rank]; ++i) {
    const unsigned got = bits == 8 ? recv8[i] : recv16[i];
    if (got != expected) ++wrong, seen = got;
  }
  int all = 0;
  unsigned shown = wrong ? seen : 0, seen_max = 0;
  MPI_Allreduce(&wrong, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&shown, &seen_max, 1, MPI_UNSIGNED, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("%s %d-bit at %d processes, %d elements (%d bytes) [",
           nonblocking ? "MPI_Ireduce_scatter" : "MPI_Reduce_scatter", bits, size, total,
           total * bits / 8);
    for (int i = 0; i < size; ++i) printf("%s%d", i ? "," : "", recvcounts[i]);
    if (all)
      printf("]: %d elements wrong (e.g. %u, expected %u)\n", all, seen_max, expected);
    else
      printf("]: right (%u)\n", expected);
  }
  return all;
}

static int reduce_scatter(int argc, char** argv) {
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int bits = argc > 2 ? atoi(argv[2]) : 0;
  if (bits != 8 && bits != 16) {
    fprintf(stderr, "reduce_scatter: BITS must be 8 or 16\n");
    return 2;
  }
  int recvcounts[256];
  if (size > 256) return 2;
  int bad = 0;
  if (argc > 3) {
    if (argc - 3 != size) {
      fprintf(stderr, "reduce_scatter: %d recvcounts for %d processes\n", argc - 3, size);
      return 2;
    }
    int total = 0;
    for (int i = 0; i < size; ++i) total += recvcounts[i] = atoi(argv[3 + i]);
    if (total > MAX_TOTAL) {
      fprintf(stderr, "reduce_scatter: at most %d elements in all\n", MAX_TOTAL);
      return 2;
    }
    for (int nb = 0; nb <= 1; ++nb) bad |= one_vector(bits, recvcounts, nb) != 0;
    return bad;
  }
  for (int total = 1; total <= 32 / (bits / 8); ++total)
    for (int spread = 0; spread < 3; ++spread) {
      memset(recvcounts, 0, sizeof recvcounts);
      if (spread == 0) {
        for (int i = 0; i < size; ++i) recvcounts[i] = total / size + (i < total % size);
      } else if (spread == 1) {
        recvcounts[size - 1] = total;
      } else {
        const int slots = (size + 1) / 2;
        for (int i = 0; i < slots; ++i) recvcounts[2 * i] = total / slots + (i < total % slots);
      }
      for (int nb = 0; nb <= 1; ++nb) bad |= one_vector(bits, recvcounts, nb) != 0;
    }
  return bad;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int bad;
  if (argc > 1 && strcmp(argv[1], "reduce_scatter") == 0) {
    bad = reduce_scatter(argc, argv);
  } else if (argc > 1) {
    fprintf(stderr, "usage: %s [reduce_scatter 8|16 [RECVCOUNTS...]]\n", argv[0]);
    bad = 2;
  } else {
    bad = reduce_local();
  }
  MPI_Finalize();
  return bad;
}
