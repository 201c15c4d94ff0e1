#include "check_main.h"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <fstream>

#include "comm_zoo.h"
#include "harness.h"
#include "job_protocol.h"
#include "mpi_types.h"
#include "thresholds.h"

namespace ordo::harness {

void start_checks() {
  if (world_rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    ::testing::GTEST_FLAG(output) = "";
  }
  const auto mismatches = verify_basic_types();
  if (!mismatches.empty()) {
    if (world_rank() == 0)
      for (const auto& m : mismatches)
        std::fprintf(stderr,
                     "ordo: the reference's datatype model does not match this library: %s\n",
                     m.c_str());
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  // The library's thresholds are read now (MPI_T: about 0.2 s in Open MPI),
  // not inside the first case that asks for them.
  thresholds();
  build_zoo();
}

int finish_checks(int rc) {
  // Tells the runner that the executable ran to its end (an MPI_Abort inside
  // the library can also end a job with exit code 1).
  if (world_rank() == 0 && !settings().journal.empty())
    std::ofstream(settings().journal + kDoneSuffix) << rc << "\n";
  free_zoo();
  finalize();
  MPI_Finalize();
  return rc;
}

}  // namespace ordo::harness
