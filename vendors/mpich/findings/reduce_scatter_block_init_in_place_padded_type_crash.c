/* MPICH 4.0.2: a persistent MPI_Reduce_scatter_block with MPI_IN_PLACE on one
   process, a non-commutative user op and a datatype whose extent exceeds its
   data (resized(lb, 40, vector(2, 2, 3, MPI_INT)); argv[3] = 1: lb = -8, else
   lb = 0; both fail) corrupts the heap: from 2 elements on glibc aborts or the
   process segfaults, in a start or at MPI_Request_free / MPI_Finalize (seen:
   count 2 abort after the starts, 4 and 7 segfault, 1000 and 65536 abort).
   With one element, or with argv[2] = 1 (the op declared commutative), it runs
   clean. argv[4] = 1 passes a separate send buffer instead of MPI_IN_PLACE:
   the same corruption (seen: count 1000 segfaults; found by the crossing's
   strength-3 run, on MPI_COMM_SELF too), so the trigger is the one-process
   persistent call, not the in-place argument. Forced to the noncommutative
   schedule (MPIR_CVAR_DEVICE_COLLECTIVES=none
   MPIR_CVAR_IREDUCE_SCATTER_BLOCK_INTRA_ALGORITHM=sched_noncommutative, the
   variant sweep's mpich.ireduce_scatter_block.intra.sched_noncommutative) a
   commutative op (argv[2] = 1) aborts the same way from 2 elements ("free():
   invalid size", SIGABRT; lb -8 or 0, in place or not; 1 element is fine).
   Run: mpiexec -n 1 ./a.out [count [commute [negative_lb [not_in_place]]]]
   Exit status 0 when every start gives the input back unchanged (one process:
   the reduction of one contribution, the op is never called). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Non-commutative, on whole cells of the vector's 4 ints: out = in, a
   projection (with one process it is never called, as the standard allows). */
static void first(void* in, void* inout, int* len, MPI_Datatype* dt) {
  (void)dt;
  int* a = in;
  int* b = inout;
  for (int i = 0; i < *len; ++i) {
    b[i * 10 + 0] = a[i * 10 + 0];
    b[i * 10 + 1] = a[i * 10 + 1];
    b[i * 10 + 3] = a[i * 10 + 3];
    b[i * 10 + 4] = a[i * 10 + 4];
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const int count = argc > 1 ? atoi(argv[1]) : 65536;
  const int commute = argc > 2 ? atoi(argv[2]) : 0, lb = argc > 3 && atoi(argv[3]) ? -8 : 0;
  const int separate = argc > 4 && atoi(argv[4]);
  MPI_Datatype vec, type;
  MPI_Type_vector(2, 2, 3, MPI_INT, &vec);
  MPI_Type_create_resized(vec, lb, 40, &type);
  MPI_Type_commit(&type);
  MPI_Op op;
  MPI_Op_create(first, commute, &op);
  /* count elements of extent 40, the lower bound at most 8 bytes below recv */
  char* mem = calloc((size_t)count * 40 + 64, 1);
  int* recv = (int*)(mem + 8);
  /* the send buffer of the separate form: the same layout */
  char* smem = separate ? calloc((size_t)count * 40 + 64, 1) : NULL;
  int* send = separate ? (int*)(smem + 8) : NULL;
  int bad = 0;
  MPI_Request req;
  MPI_Reduce_scatter_block_init(separate ? (const void*)send : MPI_IN_PLACE, recv, count, type, op,
                                MPI_COMM_WORLD, MPI_INFO_NULL, &req);
  for (int start = 1; start <= 3 && !bad; ++start) {
    for (int e = 0; e < count; ++e) {
      int* cell = (int*)((char*)(separate ? send : recv) + (long)e * 40);
      cell[0] = start * 1000 + e, cell[1] = e, cell[3] = -e, cell[4] = start;
    }
    MPI_Start(&req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    for (int e = 0; e < count && !bad; ++e) {
      int* cell = (int*)((char*)recv + (long)e * 40);
      if (cell[0] != start * 1000 + e || cell[1] != e || cell[3] != -e || cell[4] != start) {
        printf("start %d: element %d changed\n", start, e);
        bad = 1;
      }
    }
  }
  MPI_Request_free(&req);
  printf(bad ? "wrong result\n" : "ok\n");
  MPI_Op_free(&op);
  MPI_Type_free(&type);
  MPI_Type_free(&vec);
  free(mem);
  free(smem);
  MPI_Finalize();
  return bad;
}
