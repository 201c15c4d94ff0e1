// One GoogleTest main for every rank: all ranks run the same tests in the
// same order; only rank 0 prints and writes the gtest XML and the journal.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>

#include "comm_zoo.h"
#include "harness.h"
#include "mpi_types.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  ordo::harness::init(&argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int rank = ordo::harness::world_rank();
  if (rank != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    ::testing::GTEST_FLAG(output) = "";
  }
  const auto mismatches = ordo::harness::verify_basic_types();
  if (!mismatches.empty()) {
    if (rank == 0)
      for (const auto& m : mismatches)
        std::fprintf(stderr, "ordo: the reference's datatype model does not match this library: %s\n",
                     m.c_str());
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  ordo::harness::build_zoo();
  const int rc = RUN_ALL_TESTS();
  ordo::harness::free_zoo();
  ordo::harness::finalize();
  MPI_Finalize();
  return rc;
}
