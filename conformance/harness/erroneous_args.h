// DETECT: puts the erroneous argument a case names (ref::Case::erroneous)
// into the call the executor makes. Whether that argument makes the call
// erroneous, and by which clause, is the reference's to say
// (ordo/reference/erroneous.h); this header only builds the argument.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ordo/reference/case.h"

namespace ordo::harness {

// The handles: MPI_OP_NULL, MPI_DATATYPE_NULL, a derived datatype with the
// case datatype's typemap left uncommitted or freed, a freed user op.
// Releases what it made (the uncommitted datatype) when destroyed.
class ErroneousHandles {
 public:
  ErroneousHandles(const ref::Case& c, MPI_Datatype* dt, MPI_Op* op) {
    const std::string& k = c.erroneous;
    if (k == "op_null") {
      *op = MPI_OP_NULL;
    } else if (k == "datatype_null") {
      *dt = MPI_DATATYPE_NULL;
    } else if (k == "uncommitted_type") {
      if (check(MPI_Type_contiguous(1, *dt, &made_), "MPI_Type_contiguous")) *dt = made_;
    } else if (k == "freed_type") {
      MPI_Datatype t = MPI_DATATYPE_NULL;
      if (check(MPI_Type_contiguous(1, *dt, &t), "MPI_Type_contiguous") &&
          check(MPI_Type_commit(&t), "MPI_Type_commit")) {
        const MPI_Datatype stale = t;  // the handle the program still holds
        if (check(MPI_Type_free(&t), "MPI_Type_free")) *dt = stale;
      }
    } else if (k == "freed_op") {
      MPI_Op o = MPI_OP_NULL;
      if (check(MPI_Op_create(&leave_inoutvec, 0, &o), "MPI_Op_create")) {
        const MPI_Op stale = o;
        if (check(MPI_Op_free(&o), "MPI_Op_free")) *op = stale;
      }
    }
  }
  ~ErroneousHandles() {
    if (made_ != MPI_DATATYPE_NULL) MPI_Type_free(&made_);
  }
  ErroneousHandles(const ErroneousHandles&) = delete;
  ErroneousHandles& operator=(const ErroneousHandles&) = delete;

  // Non-empty when the library failed to build the argument (then the case fails).
  const std::string& error() const { return error_; }

 private:
  // The freed op's function: the library has no business calling it.
  static void leave_inoutvec(void*, void*, int*, MPI_Datatype*) {}
  bool check(int rc, const char* what) {
    if (rc == MPI_SUCCESS) return true;
    error_ = std::string("ordo: ") + what +
             " failed while building the erroneous argument (error code " + std::to_string(rc) +
             ")";
    return false;
  }
  MPI_Datatype made_ = MPI_DATATYPE_NULL;
  std::string error_;
};

// The scalars: MPI_ROOT as the root of an intracommunicator Reduce; a
// negative count (Reduce_scatter: recvcounts[0]; Reduce_scatter_block:
// recvcount). root_out_of_range needs nothing here: the case's root is passed.
inline void erroneous_scalars(const ref::Case& c, int* count, std::vector<int>* counts, int* block,
                              int* root) {
  if (c.erroneous == "root_is_mpi_root") *root = MPI_ROOT;
  if (c.erroneous == "negative_count") {
    auto negative = [](int n) { return -std::max(1, n); };
    *count = negative(*count);
    *block = negative(*block);
    if (!counts->empty()) (*counts)[0] = negative((*counts)[0]);
  }
}

}  // namespace ordo::harness
