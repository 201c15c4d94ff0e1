/* Finding: MPI_Reduce_scatter with MPI_IN_PLACE and uneven recvcounts of
 * about 128 Ki ints per process aborts inside the library ("Assertion failed
 * in file src/mpi/datatype/typerep/src/typerep_yaksa_pack.c: memcpy argument
 * memory ranges overlap") instead of scattering the reduction (MPI-4.1
 * Section 6.10.2: with MPI_IN_PLACE the input is taken from recvbuf and the
 * result left at its beginning).
 *
 *   mpicc.mpich reduce_scatter_in_place_large_abort.c -o repro
 *   mpiexec.mpich -n 3 ./repro 131073
 *   MPIR_CVAR_DEVICE_COLLECTIVES=none MPIR_CVAR_REDUCE_SCATTER_INTRA_ALGORITHM=pairwise \
 *     mpiexec.mpich -n 2 ./repro 7
 *   MPIR_CVAR_DEVICE_COLLECTIVES=none MPIR_CVAR_IREDUCE_SCATTER_INTRA_ALGORITHM=sched_pairwise \
 *     mpiexec.mpich -n 2 ./repro 7 i      # MPI_Ireduce_scatter
 *
 * Exits 0 when every rank receives its block of sums, 1 on a wrong value; the
 * abort ends the job. MPICH 4.0.2: rank 1 aborts. Small counts (7, 1000) are
 * right with the library's own choice. The trigger is the size of the whole
 * receive buffer (the sum of recvcounts times the datatype's size) reaching
 * 512 KiB, with a process whose block starts before its own length (process
 * 1 here): measured with the counts n-1, n, n+1, ... of this program, 2
 * processes abort from n = 65537 (65536: 524284 bytes in all, right), 3 from
 * 43691, 4 from 32769, 8 from 16385; 1 process is right. The element size
 * does not matter: 65 elements of contiguous(1028,MPI_INT) (4112 bytes)
 * abort at 2 processes and 64 do not, with the library's own choice, in
 * MPI_Ireduce_scatter, and under MPIR_CVAR_REDUCE_SCATTER_INTRA_ALGORITHM=nb
 * (MPI_Reduce_scatter through the nonblocking schedule: the variant sweep's
 * large-element class met it there, 1000 elements of 4112 bytes). The fault is most likely the
 * pairwise algorithm's: the library takes it for long messages (commutative ops above
 * MPIR_CVAR_REDUCE_SCATTER_COMMUTATIVE_LONG_MSG_SIZE, 512 KiB), and forced to
 * it (algorithm variant mpich.reduce_scatter.intra.pairwise, found by the
 * variant sweep) MPI_Reduce_scatter with MPI_IN_PLACE aborts at every count,
 * 7 ints at 2 and 3 processes (a rank whose block is not first moves it to
 * the front of recvbuf through overlapping memory: "memcpy argument memory
 * ranges overlap, dst_=...440 src_=...458 len_=28"); recursive_halving is
 * right. The nonblocking schedule of the same algorithm
 * (mpich.ireduce_scatter.intra.sched_pairwise) aborts the same way in
 * MPI_Ireduce_scatter and MPI_Reduce_scatter_init. No upstream report found (searched pmodels/mpich
 * issues). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = argc > 1 ? atoi(argv[1]) : 131073;
  int *counts = malloc(sizeof(int) * (size_t)size), total = 0, offset = 0;
  for (int i = 0; i < size; ++i) {
    counts[i] = n + (i % 3) - 1;
    if (i < rank) offset += counts[i];
    total += counts[i];
  }
  int* buf = malloc(sizeof(int) * (size_t)total);
  for (int i = 0; i < total; ++i) buf[i] = rank + i;
  if (argc > 2 && argv[2][0] == 'i') { /* the nonblocking form: ./repro 7 i */
    MPI_Request req;
    MPI_Ireduce_scatter(MPI_IN_PLACE, buf, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
  } else {
    MPI_Reduce_scatter(MPI_IN_PLACE, buf, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  }
  int ok = 1;
  for (int i = 0; i < counts[rank] && ok; ++i)
    if (buf[i] != size * (size - 1) / 2 + size * (offset + i)) {
      printf("rank %d element %d: expected %d, got %d\n", rank, i,
             size * (size - 1) / 2 + size * (offset + i), buf[i]);
      ok = 0;
    }
  int all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0 && all) printf("every rank received its block\n");
  MPI_Finalize();
  return all ? 0 : 1;
}
