// Floating point with inputs whose sum depends on the order of evaluation:
// results lie within the error bound of summation in some order; Allreduce
// gives bit-identical results on every rank (MUST); the same call repeated
// gives the same result (SHOULD, advice to implementors).
#include <gtest/gtest.h>

#include "catalogue.h"

using namespace ordo::catalogue;

namespace {

Case inexact(Routine r, const char* type, int count, const std::string& shape) {
  Case c = at_last_root(make(r, "MPI_SUM", type, count, shape));
  c.exact = false;
  return c;
}

}  // namespace

TEST(Allreduce, floating_point_results_are_bit_identical_on_every_rank) {
  ORDO_CLAUSE("allreduce.identical-results", MUST);
  for (const std::string& shape : all_shapes())
    for (const char* type : {"MPI_FLOAT", "MPI_DOUBLE", "MPI_LONG_DOUBLE", "MPI_REAL"})
      for (int count : {1, 7, 1000, 70000}) {
        ordo::harness::run_case(inexact(Routine::allreduce, type, count, shape));
        Case nb = inexact(Routine::allreduce, type, count, shape);
        nb.mode = Mode::nonblocking;
        ordo::harness::run_case(nb);
      }
}

TEST(Reductions, floating_point_results_lie_within_the_error_bound_of_some_summation_order) {
  ORDO_CLAUSE("reduce.inexact-within-bound", MUST);
  for (Routine r : collectives())
    for (const char* type : {"MPI_FLOAT", "MPI_DOUBLE", "MPI_LONG_DOUBLE"})
      for (int count : {1, 1000}) ordo::harness::run_case(inexact(r, type, count, "world"));
}

TEST(Reductions, the_same_call_repeated_gives_the_same_result) {
  ORDO_CLAUSE("collective.reproducible", SHOULD);
  ordo::harness::CaseOptions twice;
  twice.repeat = true;
  for (Routine r : collectives())
    for (const char* type : {"MPI_FLOAT", "MPI_DOUBLE"})
      for (int count : {7, 70000}) ordo::harness::run_case(inexact(r, type, count, "world"), twice);
}
