// The proposed MPI_Reduce_locals (inbuf, argbuf, inoutbuf): the five
// assignments of the proposal, with non-commutative ops so that the
// orientation (X the left operand) is visible. ordo checks the library's own
// MPIX_Reduce_locals when it has one, else ordo's portable one; then every
// record says so (the harness sets routine "ordo_portable_reduce_locals over
// MPI_Reduce_local" and credited_to "ordo"), and the report keeps those
// records out of the library's verdict.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "catalogue.h"

using namespace ordo::catalogue;

namespace {

struct Assignment {
  const char* name;
  bool in_is_in_place, arg_is_in_place, arg_is_in;
};
const Assignment kAssignments[] = {
    {"A = X op Y", false, false, false}, {"A = A op Y", true, false, false},
    {"A = X op A", false, true, false},  {"A = X op X", false, false, true},
    {"A = A op A", true, true, false},
};

}  // namespace

TEST(Reduce_locals, which_implementation_is_checked_is_recorded) {
  ORDO_CLAUSE("reduce-locals.implementation", INFO);
  const bool own = dlsym(RTLD_DEFAULT, "MPIX_Reduce_locals") != nullptr;
  ordo::harness::record_check("MPIX_Reduce_locals",
                              {ordo::harness::LocalVerdict::Status::pass,
                               own ? "the library's own MPIX_Reduce_locals"
                                   : "ordo's portable MPIX_Reduce_locals over MPI_Reduce_local",
                               ""});
}

TEST(Reduce_locals, the_five_assignments_of_the_proposal_keep_x_as_the_left_operand) {
  ORDO_CLAUSE("reduce-locals.assignments", MUST);
  struct OpType {
    const char* op;
    const char* type;
  };
  const OpType ops[] = {{"witness.tracer", "contiguous(4,MPI_INT)"},
                        {"witness.matrix", "vector(2,2,3,MPI_UINT32_T)"},
                        {"MPI_SUM", "MPI_INT"},
                        {"MPI_MAXLOC", "MPI_DOUBLE_INT"},
                        {"MPI_PROD", "MPI_C_DOUBLE_COMPLEX"}};
  for (const Assignment& a : kAssignments)
    for (const OpType& o : ops)
      for (int count : {0, 1, 3}) {
        Case c = make(Routine::reduce_locals, o.op, o.type, count);
        c.locals_in_is_in_place = a.in_is_in_place;
        c.locals_arg_is_in_place = a.arg_is_in_place;
        c.locals_arg_is_in = a.arg_is_in;
        ordo::harness::run_case(c);
      }
}
