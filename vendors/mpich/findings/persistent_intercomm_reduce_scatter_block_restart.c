/* MPICH 4.0.2: a persistent MPI_Reduce_scatter_block on an intercommunicator
   delivers its result at the first MPI_Start only. Started again (new input
   written into the same send buffer between the starts), the receive buffer
   of a process is left unwritten.
   Run: mpiexec -n 3 ./a.out   (low group: world ranks 0-1, high group: rank 2);
   mpiexec -n 4 ./a.out 1 (low group: rank 0): MPI_Wait of the second start
   fails ("Invalid communicator"); in ordo's checks the same restart at 4 to
   6 processes never completes (a timeout: with MPI_ERRORS_RETURN, as the
   checks set it, persistent_intercomm_reduce_scatter_block_restart_hang.c).
   MPICH 4.2.1: the same at -n 3 (the unwritten buffer; at -n 4 the default
   error handler ends the job, signal 11); MPICH 5.0.2: right.
   Exit status 0 when every start gives the sum of the other group's inputs. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int wr, wp;
  MPI_Comm_rank(MPI_COMM_WORLD, &wr);
  MPI_Comm_size(MPI_COMM_WORLD, &wp);
  /* argv[1]: the low group's size (default: all but the last process) */
  const int nlow = argc > 1 ? atoi(argv[1]) : wp - 1, count = 1, low = wr < nlow;
  MPI_Comm local, inter;
  MPI_Comm_split(MPI_COMM_WORLD, low, wr, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? nlow : 0, 7, &inter);
  int lsize, rsize;
  MPI_Comm_size(local, &lsize);
  MPI_Comm_remote_size(inter, &rsize);
  /* Every process sends count * lsize * rsize elements; each receives
     recvcount = count * rsize of the other group's sum. */
  const int recvcount = count * rsize, total = count * lsize * rsize;
  int* send = malloc(sizeof(int) * total);
  int* recv = malloc(sizeof(int) * recvcount);
  for (int i = 0; i < total; ++i) send[i] = 100 + wr;
  MPI_Request req;
  MPI_Reduce_scatter_block_init(send, recv, recvcount, MPI_INT, MPI_SUM, inter, MPI_INFO_NULL,
                                &req);
  int bad = 0;
  for (int start = 1; start <= 3; ++start) {
    for (int i = 0; i < total; ++i) send[i] = start * 100 + wr;
    for (int i = 0; i < recvcount; ++i) recv[i] = -1;
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    int want = 0;
    for (int r = 0; r < wp; ++r)
      if ((r < nlow) != low) want += start * 100 + r;
    for (int i = 0; i < recvcount; ++i)
      if (recv[i] != want) {
        printf("world rank %d, start %d: element %d is %d, expected %d\n", wr, start, i, recv[i],
               want);
        bad = 1;
        break;
      }
  }
  MPI_Request_free(&req);
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (wr == 0) printf(any ? "wrong result\n" : "ok\n");
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  free(send);
  free(recv);
  MPI_Finalize();
  return any;
}
