/* Finding (algorithm variants, derived datatypes): forced to one of the
 * blocking MPI_Allreduce algorithms that MPICH 4.1 added (tree, ring, recexch,
 * k_reduce_scatter_allgather) or 5.0 added (recursive_multiplying), MPICH
 * 4.2.1 and 5.0.2 damage the heap or write outside the receive buffer when
 * the datatype's true lower bound is not 0 or its true extent exceeds its
 * extent. Two valid types show it: "lb",
 * hindexed([2,2],[-8,8],MPI_INT) (true lb -8, true extent 24 = extent, holes
 * between the blocks), and "il", resized(0,16,indexed([2,2],[0,10],MPI_INT))
 * (extent 16 below the true extent 48; element i holds the ints 4i, 4i+1,
 * 4i+10, 4i+11, so no two elements share an int). Each algorithm has its own
 * fault, read from the v4.2.1 sources:
 *   tree: a process with children allocates its receive buffer, moves the
 *     pointer back by the true lb, and frees the moved pointer: with "lb" at 2
 *     processes or more, glibc aborts in the call ("free(): invalid pointer",
 *     SIGABRT), count 1 or more, in place or not; "il" is right.
 *   ring: it steps through the receive buffer by max(extent, true extent)
 *     instead of the extent, and receives into a buffer it does not move by
 *     the true lb: with "il" and a commutative op at 2 processes or more, from
 *     count 2 on, the elements from the second block of the split on hold one
 *     process's contribution only (2 processes, count 7: from element 4) and
 *     bytes past the end of the receive buffer are written (or the op's reads
 *     of them end in SIGSEGV); count 1 is right. With "lb" the values are
 *     right but glibc aborts at a later free() ("free(): invalid size").
 *   recexch: the 8192-byte buffers it keeps on the communicator for messages
 *     of count x max(extent, true extent) <= 8192 bytes are used without the
 *     move by the true lb: with "lb" (2 processes from count 1 to 341; 342
 *     and up take freshly allocated, moved buffers: right) the values are
 *     right and the heap damage is found in MPI_Finalize, when the
 *     communicator's buffers are freed (SIGABRT, "free(): invalid size",
 *     "double free or corruption (out)"); "il" is right.
 *   k_reduce_scatter_allgather: its temporary buffer is count x extent bytes,
 *     neither widened to the true extent nor moved by the true lb: with "lb"
 *     or "il" at 2 processes or more (count 1 or more) the values are right
 *     and glibc aborts at a later free() ("munmap_chunk(): invalid pointer",
 *     "free(): invalid size") or a process dies of SIGSEGV.
 *   recursive_multiplying (new in MPICH 5.0; 4.2.1 has no such algorithm):
 *     with "il" at 2 processes or more the values are right and the heap is
 *     damaged: from count 2 a process dies of SIGSEGV after every process
 *     printed "right", or glibc aborts ("munmap_chunk(): invalid pointer",
 *     "corrupted size vs. prev_size", "double free or corruption (!prev)");
 *     count 1 ends the same way only under glibc's heap checks (below);
 *     measured on 5.0.2 only (2026-11-28: counts 1, 2, 7 and 1000 at 2 to 4
 *     processes, in place or not; 7 at 2 processes 4 runs of 4). "lb" (counts
 *     7 and 1000), "pad" and "plain" are right there, also under the checks,
 *     and 1 process is right with "il".
 * Not affected: contiguous(4,MPI_INT) ("plain"); "pad",
 * resized(-8,40,vector(2,2,3,MPI_INT)) (a lower bound moved below 0 by a
 * resize only: true lb 0, true extent 20 below the extent 40, padded), right
 * with glibc's heap checks on and no abort under all four algorithms;
 * 1 process, the library's own choice of algorithm and recursive_doubling.
 * MPICH 4.0.2 has none of these algorithms (its MPI_Init rejects the value of
 * the variable). The elements do not overlap in memory, so both receive
 * buffers are valid: MPI-4.1 Section 6.9.1 (MPI-5.0 Section 6.9.1) makes only
 * overlapping datatypes erroneous in receive buffers, and a lower bound below 0
 * (MPI_Type_create_hindexed) or an extent set below the true extent
 * (MPI_Type_create_resized) is legal. ordo met it in its noncommutative
 * derived-datatype check, its receive-holes check and the crossing check's
 * interleaved class under the variant sweep of 4.2.1.
 *
 * MPICH reads the forcing variables at MPI_Init from the environment:
 *
 *   mpicc.mpich variant_allreduce_negative_lb_or_interleaved_type_heap_damage.c -o repro
 *   mpiexec.mpich -n 2 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM tree ./repro 1 lb
 *   mpiexec.mpich -n 2 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM ring ./repro 7 il i
 *   mpiexec.mpich -n 4 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM recexch ./repro 7 lb
 *   mpiexec.mpich -n 2 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM k_reduce_scatter_allgather \
 *       ./repro 7 il
 *   mpiexec.mpich -n 2 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM recursive_multiplying \
 *       ./repro 7 il
 *   mpiexec.mpich -n 5 -genv MPIR_CVAR_DEVICE_COLLECTIVES none \
 *       -genv MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM ring \
 *       -genv LD_PRELOAD /lib/x86_64-linux-gnu/libc_malloc_debug.so.0 \
 *       -genv MALLOC_CHECK_ 3 ./repro 1000 pad
 *
 * Arguments: the count (default 7), the type (lb, il, pad or plain; default
 * lb), then i for MPI_IN_PLACE. The op is a commutative user op that adds the
 * four ints of each element (MPICH 4.2.1 rejects MPI_SUM on a derived
 * datatype).
 * Each process checks its result (the sum of every process's contribution,
 * computed here) and 64 guard bytes on each side of the receive buffer, then
 * says so before it calls MPI_Finalize. Exits 0 when every process is right,
 * 1 on a wrong value or a written guard byte (the first three printed per
 * process), 2 after 30 s of hanging; the heap damage ends the job (exit code
 * 6 or 11, or the launcher's report of the signal, also after every process
 * printed "right"). Measured on 2026-11-28 at 1 to 4 processes: MPICH 4.2.1
 * (Debian 13) and 5.0.2 (Debian unstable) as above; 4.0.2 (host) rejects the
 * variable. "pad" measured on 2026-11-28 on 4.2.1 and 5.0.2 with glibc's
 * checks (libc_malloc_debug.so.0 preloaded, MALLOC_CHECK_=3): ring at 5
 * processes, counts 1, 7, 1000 and 65536, in place or not: every process
 * right and exit 0 (also with the call repeated); tree, recexch and
 * k_reduce_scatter_allgather on 4.2.1 at 4 processes, counts 1, 7 and 1000:
 * the same. Under ring with the same checks, "il" from count 2 and "lb" from
 * count 1 abort ("free(): invalid pointer") at 2 and 3 processes on both
 * releases. No upstream report found (searched pmodels/mpich issues). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GUARD 64

static MPI_Aint off[4]; /* the byte offsets of an element's four ints */
static MPI_Aint ext;    /* the extent of the datatype */

static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "no result after 30 s\n";
  write(2, msg, sizeof msg - 1);
  _exit(2);
}

/* Commutative: adds the four ints of each element of in into inout. */
static void sum(void* in, void* inout, int* len, MPI_Datatype* dt) {
  (void)dt;
  for (int e = 0; e < *len; e++)
    for (int j = 0; j < 4; j++) {
      int a, b;
      memcpy(&a, (char*)in + e * ext + off[j], sizeof a);
      memcpy(&b, (char*)inout + e * ext + off[j], sizeof b);
      b += a;
      memcpy((char*)inout + e * ext + off[j], &b, sizeof b);
    }
}

int main(int argc, char** argv) {
  int rank, size, bad = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int count = argc > 1 ? atoi(argv[1]) : 7;
  const char* kind = argc > 2 ? argv[2] : "lb";
  int in_place = argc > 3 && strchr(argv[3], 'i') != NULL;
  signal(SIGALRM, on_alarm);
  alarm(30);

  MPI_Datatype type;
  if (strcmp(kind, "lb") == 0) { /* hindexed([2,2],[-8,8],MPI_INT) */
    int bl[2] = {2, 2};
    MPI_Aint d[2] = {-8, 8};
    MPI_Type_create_hindexed(2, bl, d, MPI_INT, &type);
    off[0] = -8, off[1] = -4, off[2] = 8, off[3] = 12;
  } else if (strcmp(kind, "il") == 0) { /* resized(0,16,indexed(...)) */
    int bl[2] = {2, 2}, d[2] = {0, 10};
    MPI_Datatype t;
    MPI_Type_indexed(2, bl, d, MPI_INT, &t);
    MPI_Type_create_resized(t, 0, 16, &type);
    MPI_Type_free(&t);
    off[0] = 0, off[1] = 4, off[2] = 40, off[3] = 44;
  } else if (strcmp(kind, "pad") == 0) { /* resized(-8,40,vector(...)) */
    MPI_Datatype t;
    MPI_Type_vector(2, 2, 3, MPI_INT, &t);
    MPI_Type_create_resized(t, -8, 40, &type);
    MPI_Type_free(&t);
    off[0] = 0, off[1] = 4, off[2] = 12, off[3] = 16;
  } else { /* contiguous(4,MPI_INT) */
    MPI_Type_contiguous(4, MPI_INT, &type);
    off[0] = 0, off[1] = 4, off[2] = 8, off[3] = 12;
  }
  MPI_Type_commit(&type);
  MPI_Aint lb, tlb, textent;
  MPI_Type_get_extent(type, &lb, &ext);
  MPI_Type_get_true_extent(type, &tlb, &textent);
  MPI_Op op;
  MPI_Op_create(sum, 1, &op);

  /* each buffer spans exactly the count elements, with guards around it */
  MPI_Aint span = count > 0 ? (count - 1) * ext + textent : 0;
  unsigned char *sb = malloc(span + 2 * GUARD), *rb = malloc(span + 2 * GUARD);
  memset(sb, 0x5a, span + 2 * GUARD);
  memset(rb, 0x5a, span + 2 * GUARD);
  unsigned char *s = sb + GUARD - tlb, *r = rb + GUARD - tlb;
  for (int e = 0; e < count; e++)
    for (int j = 0; j < 4; j++) {
      int v = 1000 * (rank + 1) + 4 * e + j;
      memcpy((in_place ? r : s) + e * ext + off[j], &v, sizeof v);
    }

  MPI_Allreduce(in_place ? MPI_IN_PLACE : s, r, count, type, op, MPI_COMM_WORLD);

  for (int e = 0; e < count && bad < 3; e++)
    for (int j = 0; j < 4 && bad < 3; j++) {
      int v, want = 1000 * size * (size + 1) / 2 + size * (4 * e + j);
      memcpy(&v, r + e * ext + off[j], sizeof v);
      if (v != want) {
        printf("rank %d: element %d int %d: %d, expected %d\n", rank, e, j, v, want);
        bad++;
      }
    }
  for (int i = 0; i < GUARD; i++)
    if (rb[i] != 0x5a || rb[GUARD + span + i] != 0x5a) {
      printf("rank %d: bytes outside the receive buffer were written\n", rank);
      bad++;
      break;
    }
  free(sb);
  free(rb);
  MPI_Type_free(&type);
  MPI_Op_free(&op);
  printf("rank %d: %s; calling MPI_Finalize\n", rank, bad ? "WRONG" : "right");
  fflush(stdout);
  alarm(0);
  MPI_Finalize();
  return bad ? 1 : 0;
}
