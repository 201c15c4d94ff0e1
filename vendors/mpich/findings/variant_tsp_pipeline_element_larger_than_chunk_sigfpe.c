/* Finding (algorithm variants whose pipeline chunk is set smaller than one
 * element of the datatype): MPI_Ireduce under tsp_ring or tsp_tree, and
 * MPI_Iallreduce under tsp_tree, with MPIR_CVAR_*_CHUNK_SIZE=256 and a
 * datatype of one element of 272 bytes (contiguous(68, MPI_INT)), die on
 * every process with SIGFPE (integer divide by zero) instead of reducing.
 * A chunk holds no whole element here; the pipeline's count of elements
 * per chunk is then 0, and MPICH divides by it. A 256-byte element passes.
 * MPI-4.1 Section 6.9.1 (MPI-5.0 Section 6.9.1): a derived datatype of any
 * size is a valid argument of the reduction; nothing in the standard lets a
 * library's internal segment size limit the element size. ordo met it with
 * the crossing check's large-element datatype class (#39).
 *
 * MPICH reads the forcing variables at MPI_Init from the environment:
 *
 *   mpicc.mpich variant_tsp_pipeline_element_larger_than_chunk_sigfpe.c -o repro
 *   mpiexec.mpich -n 2 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_IREDUCE_INTRA_ALGORITHM tsp_ring \
 *       -genv MPIR_CVAR_IREDUCE_RING_CHUNK_SIZE 256 ./repro reduce
 *   mpiexec.mpich -n 2 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_IREDUCE_INTRA_ALGORITHM tsp_tree \
 *       -genv MPIR_CVAR_IREDUCE_TREE_TYPE knomial_1 \
 *       -genv MPIR_CVAR_IREDUCE_TREE_KVAL 3 \
 *       -genv MPIR_CVAR_IREDUCE_TREE_PIPELINE_CHUNK_SIZE 256 ./repro reduce
 *   mpiexec.mpich -n 2 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_IALLREDUCE_INTRA_ALGORITHM tsp_tree \
 *       -genv MPIR_CVAR_IALLREDUCE_TREE_TYPE knomial_2 \
 *       -genv MPIR_CVAR_IALLREDUCE_TREE_KVAL 3 \
 *       -genv MPIR_CVAR_IALLREDUCE_TREE_PIPELINE_CHUNK_SIZE 256 ./repro allreduce
 *
 * Argument: reduce (MPI_Ireduce, root 0), allreduce (MPI_Iallreduce) or
 * none for both, one after the other; an optional second argument, the
 * element's ints (default 68).
 * Exits 0 when the result is the sum of every process's element, 1 on a
 * wrong value, 2 after 30 s of hanging; the SIGFPE ends the job (exit
 * code 8 or the launcher's report of signal 8). Without the variables
 * MPICH 4.0.2 passes. No upstream report found. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int ints = 68; /* ints per element: 272 bytes */

static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "hang: the reduction did not complete in 30 s\n";
  write(2, msg, sizeof msg - 1);
  _exit(2);
}

/* A commutative user op over the large element: the element-wise sum of
 * its ints. */
static void add_elements(void* in, void* inout, int* len, MPI_Datatype* dt) {
  (void)dt;
  const int* a = in;
  int* b = inout;
  for (long i = 0; i < (long)*len * ints; ++i) b[i] += a[i];
}

int main(int argc, char** argv) {
  signal(SIGALRM, on_alarm);
  alarm(30);
  const int only_reduce = argc > 1 && strcmp(argv[1], "reduce") == 0;
  const int only_allreduce = argc > 1 && strcmp(argv[1], "allreduce") == 0;
  if (argc > 2) ints = atoi(argv[2]);
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Datatype element;
  MPI_Type_contiguous(ints, MPI_INT, &element);
  MPI_Type_commit(&element);
  MPI_Op op;
  MPI_Op_create(add_elements, 1, &op);
  int* send = malloc(sizeof(int) * (size_t)ints);
  int* recv = malloc(sizeof(int) * (size_t)ints);
  for (int i = 0; i < ints; ++i) send[i] = 1000 * rank + i, recv[i] = -1;
  int ok = 1;
  for (int all = 0; all <= 1; ++all) {
    if ((all && only_reduce) || (!all && only_allreduce)) continue;
    for (int i = 0; i < ints; ++i) recv[i] = -1;
    MPI_Request req;
    if (all)
      MPI_Iallreduce(send, recv, 1, element, op, MPI_COMM_WORLD, &req);
    else
      MPI_Ireduce(send, recv, 1, element, op, 0, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    if (all || rank == 0)
      for (int i = 0; i < ints; ++i) {
        const int want = 1000 * (size * (size - 1) / 2) + size * i;
        if (recv[i] != want) {
          if (ok)
            printf("rank %d %s int %d: expected %d, got %d\n", rank,
                   all ? "MPI_Iallreduce" : "MPI_Ireduce", i, want, recv[i]);
          ok = 0;
        }
      }
  }
  int every = 0;
  MPI_Allreduce(&ok, &every, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0) printf("%s\n", every ? "pass" : "FAIL: wrong result");
  free(send);
  free(recv);
  MPI_Op_free(&op);
  MPI_Type_free(&element);
  MPI_Finalize();
  return every ? 0 : 1;
}
