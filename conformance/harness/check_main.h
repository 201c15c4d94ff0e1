// The two ends of a check executable's main (conformance/harness/
// mpi_gtest_main.cpp, property_tests/lockstep_main.cpp), around RUN_ALL_TESTS.
#pragma once

namespace ordo::harness {

// After init() and InitGoogleTest: only rank 0 prints and writes XML; the
// datatype model is checked against the library (exit 3 on a mismatch); the
// communicator zoo is built.
void start_checks();

// With --ordo-families (ordo_sweep_checks): narrows GoogleTest's filter to the
// tests of those families that the filter already selected. Call after
// InitGoogleTest, before RUN_ALL_TESTS.
void select_families();

// Writes the completion marker for the runner (job_protocol.h, kDoneSuffix),
// frees everything, finalizes MPI and returns rc.
int finish_checks(int rc);

}  // namespace ordo::harness
