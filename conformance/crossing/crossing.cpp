// The dimensions of the case space crossed: a covering array
// (ordo::ref::crossing) of routine x form x op kind x datatype class x count
// x root x in-place x communicator shape, so that every valid pair of values
// (ORDO_CROSSING_DEPTH=3: every valid triple) runs in at least one case at
// this number of processes. Each case is judged in full, as every case is:
// values and order against the reference, send buffer unchanged, holes
// untouched, MPI_SUCCESS. Rank 0 prints the coverage figure to the job log.
#include "ordo/reference/crossing.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "catalogue.h"

using namespace ordo::catalogue;
namespace x = ordo::ref::crossing;

namespace {

int depth() {
  const char* d = std::getenv("ORDO_CROSSING_DEPTH");
  const int n = d ? std::atoi(d) : 2;
  return n >= 1 && n <= 3 ? n : 2;
}

// The topology of a shape, the same on every process: odd-even is two
// communicators of different sizes when the world size is odd, taken as the
// smaller one (its roots exist in both).
std::optional<ordo::ref::Topology> shape_topology(const std::string& shape) {
  const auto& z = ordo::harness::zoo(shape);
  if (!z.available) return std::nullopt;
  if (shape == "odd-even") return ordo::ref::Topology{false, ordo::harness::world_size() / 2, 0};
  return z.topology;
}

}  // namespace

TEST(Crossing, every_valid_pair_of_values_of_the_case_dimensions_is_checked) {
  ORDO_CLAUSE("crossing.reduce-family", MUST);
  const int strength = depth();
  const x::Coverage cov =
      x::covering_array(strength, shape_topology, ordo::harness::settings().seed);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    std::printf(
        "ordo crossing: strength %d at %d processes: %zu cases hold %lld of %lld valid %s "
        "(%.1f%%), from %lld valid calls\n",
        strength, ordo::harness::world_size(), cov.rows.size(), cov.covered_tuples,
        cov.valid_tuples,
        strength == 2   ? "pairs"
        : strength == 3 ? "triples"
                        : "values",
        cov.percent(), cov.valid_rows);
    std::fflush(stdout);
  }
  std::string why;
  std::vector<x::Row> ran;  // the rows whose case the library did not skip
  for (const x::Row& row : cov.rows) {
    const auto c = x::realize(row, shape_topology, ordo::harness::settings().seed, &why);
    ASSERT_TRUE(c) << "ordo: a row of the covering array is no valid call: " << why;
    ordo::ref::Case k = *c;
    // Buffers that are not significant are real buffers the call must leave
    // alone (NULL there is the intercomm checks' concern, and a known MPICH bug).
    k.null_insignificant = false;
    if (ordo::harness::run_case(k) != ordo::harness::Outcome::skip) ran.push_back(row);
  }
  if (rank == 0) {
    std::printf(
        "ordo crossing: of them, %lld (%.1f%%) in the %zu cases that ran (the others were "
        "skipped; their records say why)\n",
        x::tuples_held(ran, strength),
        cov.valid_tuples ? 100.0 * static_cast<double>(x::tuples_held(ran, strength)) /
                               static_cast<double>(cov.valid_tuples)
                         : 100.0,
        ran.size());
    std::fflush(stdout);
  }
}
