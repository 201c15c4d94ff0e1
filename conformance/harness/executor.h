// Runs one case on the MPI library under test, on every rank in lockstep,
// compares with the reference and records the verdict.
#pragma once

#include "harness.h"
#include "ordo/reference/case.h"

namespace ordo::harness {

// Collective over MPI_COMM_WORLD: every rank calls it with the same case.
Outcome run_case(const ref::Case& c);

// Roots a reduce case can take on a shape: the size of the smallest
// communicator of the shape (intra), or of the given group (inter).
int root_count(const std::string& shape, bool high_group = false);

}  // namespace ordo::harness
