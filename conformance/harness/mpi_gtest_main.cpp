// One GoogleTest main for every rank: all ranks run the same tests in the
// same order; only rank 0 prints and writes the gtest XML and the journal.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "check_main.h"
#include "comm_zoo.h"
#include "harness.h"
#include "mpi_types.h"
#include "node_map.h"
#include "ordo/reference/json.h"

// A check executable that needs a thread level defines this (threads/):
// MPI_Init_thread asks for it; the others use MPI_Init.
extern "C" const int ordo_thread_level __attribute__((weak));

int main(int argc, char** argv) {
  if (&ordo_thread_level != nullptr) {
    int provided = MPI_THREAD_SINGLE;
    MPI_Init_thread(&argc, &argv, ordo_thread_level, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  ordo::harness::mpi_initialized();
  // --ordo-library-version: print what the library says of itself and stop.
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) != "--ordo-library-version") continue;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int n = 0, major = 0, minor = 0;
    MPI_Get_library_version(lib, &n);
    MPI_Get_version(&major, &minor);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    // A build through the MPI-5.0 standard ABI: the ABI version the library
    // provides (MPI_Abi_get_version), beside its own version string.
    std::string abi;
#ifdef ORDO_ABI_BUILD
    int abi_major = -1, abi_minor = -1;
    const int abi_rc = MPI_Abi_get_version(&abi_major, &abi_minor);
    abi = abi_rc == MPI_SUCCESS ? ",\"abi_version\":\"" + std::to_string(abi_major) + "." +
                                      std::to_string(abi_minor) + "\""
                                : ",\"abi_version\":null,\"abi_error\":" + std::to_string(abi_rc);
#endif
    if (rank == 0)
      std::printf("{\"library\":\"%s\",\"mpi_version\":\"%d.%d\"%s}\n",
                  ordo::json::escape(std::string(lib, static_cast<std::size_t>(n))).c_str(), major,
                  minor, abi.c_str());
    MPI_Finalize();
    return 0;
  }
  // --ordo-node-map: print the node map the library uses (node_map.h) and stop.
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) != "--ordo-node-map") continue;
    const std::string map = ordo::harness::node_map_json(MPI_COMM_WORLD);
    if (!map.empty()) std::printf("%s\n", map.c_str());
    MPI_Finalize();
    return 0;
  }
  ordo::harness::init(&argc, argv);
  ::testing::InitGoogleTest(&argc, argv);
  ordo::harness::select_families();
  ordo::harness::start_checks();
  return ordo::harness::finish_checks(RUN_ALL_TESTS());
}
