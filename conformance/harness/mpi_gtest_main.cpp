// One GoogleTest main for every rank: all ranks run the same tests in the
// same order; only rank 0 prints and writes the gtest XML and the journal.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "comm_zoo.h"
#include "harness.h"
#include "mpi_types.h"
#include "ordo/reference/json.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  // --ordo-library-version: print what the library says of itself and stop.
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) != "--ordo-library-version") continue;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0, major = 0, minor = 0;
    MPI_Get_library_version(lib, &n);
    MPI_Get_version(&major, &minor);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)
      std::printf("{\"library\":\"%s\",\"mpi_version\":\"%d.%d\"}\n",
                  ordo::json::escape(std::string(lib, static_cast<std::size_t>(n))).c_str(), major, minor);
    MPI_Finalize();
    return 0;
  }
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
  // Tells the runner that the executable ran to its end (an MPI_Abort inside
  // the library can also end a job with exit code 1).
  if (rank == 0 && !ordo::harness::settings().journal.empty())
    std::ofstream(ordo::harness::settings().journal + ".done") << rc << "\n";
  ordo::harness::free_zoo();
  ordo::harness::finalize();
  MPI_Finalize();
  return rc;
}
