// The two ends of a check executable's main (conformance/harness/
// mpi_gtest_main.cpp, property_tests/lockstep_main.cpp), around RUN_ALL_TESTS.
#pragma once

namespace ordo::harness {

// Called by a main right after MPI_Init(_thread) returned: the phases line
// (finish_checks) tells the library's start-up from ordo's.
void mpi_initialized();

// After init() and InitGoogleTest: only rank 0 prints and writes XML; the
// datatype model is checked against the library (exit 3 on a mismatch); the
// communicator zoo is built; a standby launch waits for its go (await_go) and
// ends the process (exit 0) when told to quit.
void start_checks();

// With --ordo-families (ordo_sweep_checks): narrows GoogleTest's filter to the
// tests of those families that the filter already selected. Call after
// InitGoogleTest, before RUN_ALL_TESTS.
void select_families();

// Writes the completion marker for the runner (job_protocol.h, kDoneSuffix),
// frees everything, finalizes MPI, writes this rank's marker that
// MPI_Finalize returned (kFinalizedSuffix) and returns rc. With a journal, rank 0 then
// prints where its process's time went, one line for the runner:
//   ordo phases: {"wall_s":..,"mpi_init_s":..,"startup_s":..,"standby_s":..,
//                 "tests_s":..,"finalize_s":..,"cases":{"<phase>":..},
//                 "outside_cases_by_test":{"<test>":..}}
// wall: from the process's start; mpi_init: to MPI_Init's return; startup:
// ordo's set-up (its settings, waivers and statistics, the datatype model's
// check, the library's thresholds, the communicator zoo); standby: a standby
// launch's wait for its go (await_go; 0 for any other); tests: the tests,
// of which "cases" gives each phase of the cases (harness.h, Phase) and
// "outside_cases_by_test" the 8 tests with the most seconds outside them
// (their own set-up, the cases generated that the job does not select);
// finalize: the zoo freed and MPI_Finalize.
int finish_checks(int rc);

}  // namespace ordo::harness
