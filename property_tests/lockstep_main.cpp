// The GoogleTest main of the property tests (the pattern of
// conformance/harness/mpi_gtest_main.cpp) with the lockstep of DESIGN.md
// (lockstep.cpp).
#include <gtest/gtest.h>
#include <mpi.h>

#include "check_main.h"
#include "harness.h"
#include "lockstep.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ordo::harness::mpi_initialized();
  ordo::props::start_lockstep(argc, argv);
  return ordo::harness::finish_checks(RUN_ALL_TESTS());
}
