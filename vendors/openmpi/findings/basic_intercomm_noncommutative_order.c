/* Finding: Open MPI 4.1.4's coll/basic component combines a non-commutative
 * user op out of rank order in MPI_Reduce and MPI_Allreduce on an
 * intercommunicator (MPI-4.1 6.9.1, 6.9.5: the result at the root is the
 * reduction of the other group's contributions in their rank order). It
 * shows when the collective components are limited to basic (the variant
 * openmpi.coll.basic: OMPI_MCA_coll=basic,libnbc); the library's own choice
 * is right.
 *
 *   mpicc.openmpi basic_intercomm_noncommutative_order.c -o repro
 *   mpiexec.openmpi --allow-run-as-root --oversubscribe \
 *     --mca coll basic,libnbc -n 4 ./repro [reduce|allreduce]
 *
 * The intercommunicator joins world ranks 0 .. p/2-1 (low group) and the
 * others (high group); MPI_Reduce has its root at low-group rank 0.
 * The op is the product of 2x2 matrices of unsigned 32-bit integers
 * (associative, not commutative). Exits 0 when every result is the product
 * in rank order of the other group, 1 otherwise. Upstream: none found. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  uint32_t a, b, c, d;
} mat;

static mat mul(mat x, mat y) {
  mat r = {x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c,
           x.c * y.b + x.d * y.d};
  return r;
}

/* inoutvec = invec x inoutvec: invec is the lower-ranked operand. */
static void product(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  mat* x = in;
  mat* y = inout;
  for (int i = 0; i < *len; i++) y[i] = mul(x[i], y[i]);
}

/* The contribution of the process of rank r in its group, per group. */
static mat leaf(int high, int r) {
  mat m = {2u * r + 3u + 11u * high, r + 1u, 3u * r + 2u, (uint32_t)(r * r) + 7u + high};
  return m;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int allreduce = argc > 1 && !strcmp(argv[1], "allreduce");
  const int half = size / 2, high = rank >= half;
  MPI_Comm local, inter;
  MPI_Comm_split(MPI_COMM_WORLD, high, rank, &local);
  MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, high ? 0 : half, 7, &inter);
  int lrank, remote;
  MPI_Comm_rank(local, &lrank);
  MPI_Comm_remote_size(inter, &remote);
  MPI_Datatype type;
  MPI_Type_contiguous(4, MPI_UINT32_T, &type);
  MPI_Type_commit(&type);
  MPI_Op op;
  MPI_Op_create(product, 0, &op);

  mat send = leaf(high, lrank), recv = {0, 0, 0, 0};
  int check;
  if (allreduce) {
    MPI_Allreduce(&send, &recv, 1, type, op, inter);
    check = 1;
  } else {
    /* Root: low-group rank 0; the other low-group processes pass
     * MPI_PROC_NULL, the high group names the root's rank. */
    const int root = high ? 0 : (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL);
    MPI_Reduce(&send, &recv, 1, type, op, root, inter);
    check = !high && lrank == 0;
  }
  int bad = 0;
  if (check) {
    mat want = leaf(!high, 0);
    for (int r = 1; r < remote; r++) want = mul(want, leaf(!high, r));
    if (memcmp(&want, &recv, sizeof want) != 0) {
      printf(
          "world rank %d: got [%u %u; %u %u], the other group's product in rank order is "
          "[%u %u; %u %u]\n",
          rank, recv.a, recv.b, recv.c, recv.d, want.a, want.b, want.c, want.d);
      bad = 1;
    }
  }
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && !any) printf("every result is the product in rank order\n");
  MPI_Op_free(&op);
  MPI_Type_free(&type);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
  MPI_Finalize();
  return any;
}
