// Erroneous uses through the Fortran bindings (DETECT), in the test suite
// Detect so that they run with the other erroneous calls, after every other
// family's checks when the families share one launch (ordo_sweep_checks).
#include <gtest/gtest.h>

#include "catalogue.h"

using namespace ordo::catalogue;

// MPI_CHARACTER is in no group of the predefined ops (MPI-4.1 6.9.2), in
// Fortran as in C: the same erroneous call through each Fortran binding
// (mpi_f08, mpi), where the library's Fortran layer sees it first (reported
// or accepted; a crash is recorded as such). Where the library has no
// Fortran wrapper, the case is a skip that says so.
TEST(Detect, character_in_a_reduction_through_each_fortran_binding) {
  ORDO_CLAUSE("op.char-types-excluded", DETECT);
  std::vector<ordo::ref::PredefinedOp> ops;
  for (int o = 0; o < 12; ++o) ops.push_back(static_cast<ordo::ref::PredefinedOp>(o));
  for (const char* binding : {"f08", "f90"})
    for (const auto& [op, type] : invalid_pairs({ordo::ref::TypeGroup::character}, ops)) {
      if (!ordo::ref::info(type).fortran) continue;
      for (Routine r : {Routine::allreduce, Routine::reduce_local}) {
        Case c = make(r, name(op), name(type), 3);
        c.binding = binding;
        ordo::harness::run_case(c);
      }
    }
}
