#include "mpix_reduce_locals_portable.h"

#include <stdlib.h>
#include <string.h>

/* A scratch buffer laid out like `count` elements of `datatype`, holding a
 * copy of src's data (holes of the scratch are zero). */
static int layout_copy(const void* src, int count, MPI_Datatype datatype, char** mem, void** base) {
  MPI_Aint lb, extent, true_lb, true_extent;
  int rc = MPI_Type_get_extent(datatype, &lb, &extent);
  if (rc == MPI_SUCCESS) rc = MPI_Type_get_true_extent(datatype, &true_lb, &true_extent);
  if (rc != MPI_SUCCESS) return rc;
  MPI_Aint lo = true_lb, hi = true_lb + true_extent;
  if (count > 1) {
    const MPI_Aint last = (MPI_Aint)(count - 1) * extent;
    if (last < 0)
      lo += last;
    else
      hi += last;
  }
  *mem = calloc((size_t)(hi - lo) + 1, 1);
  if (*mem == NULL) return MPI_ERR_NO_MEM;
  *base = *mem - lo;
  int packed_size = 0;
  rc = MPI_Pack_size(count, datatype, MPI_COMM_SELF, &packed_size);
  if (rc != MPI_SUCCESS) return rc;
  char* packed = malloc((size_t)packed_size + 1);
  if (packed == NULL) return MPI_ERR_NO_MEM;
  int pos = 0;
  rc = MPI_Pack(src, count, datatype, packed, packed_size, &pos, MPI_COMM_SELF);
  int upos = 0;
  if (rc == MPI_SUCCESS)
    rc = MPI_Unpack(packed, packed_size, &upos, *base, count, datatype, MPI_COMM_SELF);
  free(packed);
  return rc;
}

/* dst's data := src's data, through the datatype (dst's holes untouched). */
static int typed_copy(const void* src, void* dst, int count, MPI_Datatype datatype) {
  int packed_size = 0, pos = 0, upos = 0;
  int rc = MPI_Pack_size(count, datatype, MPI_COMM_SELF, &packed_size);
  if (rc != MPI_SUCCESS) return rc;
  char* packed = malloc((size_t)packed_size + 1);
  if (packed == NULL) return MPI_ERR_NO_MEM;
  rc = MPI_Pack(src, count, datatype, packed, packed_size, &pos, MPI_COMM_SELF);
  if (rc == MPI_SUCCESS)
    rc = MPI_Unpack(packed, packed_size, &upos, dst, count, datatype, MPI_COMM_SELF);
  free(packed);
  return rc;
}

int ordo_portable_reduce_locals(const void* inbuf, const void* argbuf, void* inoutbuf, int count,
                                MPI_Datatype datatype, MPI_Op op) {
  if (count < 0) return MPI_ERR_COUNT;
  if (inoutbuf == MPI_IN_PLACE) return MPI_ERR_BUFFER;
  if (count > 0 && (inbuf == inoutbuf || argbuf == inoutbuf)) return MPI_ERR_BUFFER;
  if (count == 0) return MPI_SUCCESS;
  const void* x = inbuf == MPI_IN_PLACE ? inoutbuf : inbuf;
  char* mem = NULL;
  void* scratch = NULL;
  int rc;
  if (argbuf == MPI_IN_PLACE) {
    /* A = X op A: MPI_Reduce_local computes its second argument op= first. */
    if (x == inoutbuf) { /* A = A op A: the left operand needs a copy of A */
      rc = layout_copy(inoutbuf, count, datatype, &mem, &scratch);
      if (rc == MPI_SUCCESS) rc = MPI_Reduce_local(scratch, inoutbuf, count, datatype, op);
    } else {
      rc = MPI_Reduce_local(x, inoutbuf, count, datatype, op);
    }
  } else {
    /* A = X op Y: T := Y; T := X op T; A := T. */
    rc = layout_copy(argbuf, count, datatype, &mem, &scratch);
    if (rc == MPI_SUCCESS) rc = MPI_Reduce_local(x, scratch, count, datatype, op);
    if (rc == MPI_SUCCESS) rc = typed_copy(scratch, inoutbuf, count, datatype);
  }
  free(mem);
  return rc;
}

#ifdef ORDO_MPIX_DEFINE_SYMBOL
int MPIX_Reduce_locals(const void* inbuf, const void* argbuf, void* inoutbuf, int count,
                       MPI_Datatype datatype, MPI_Op op) {
  return ordo_portable_reduce_locals(inbuf, argbuf, inoutbuf, count, datatype, op);
}
#endif
