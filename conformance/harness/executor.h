// Runs one case on the MPI library under test, on every rank in lockstep,
// compares with the reference and records the verdict.
//
// What every case checks, whatever its clause: the call returns
// MPI_SUCCESS; the send buffer (holes included) is unchanged; guard bytes on
// both sides of every buffer are intact; the receive buffer holds the
// reference's result in its typemap and its holes are untouched; user
// functions see only the datatype handle passed to the call.
//
// At level DETECT (the running check's level), the case must be erroneous;
// the outcome records whether the library reported it (an error code came
// back) or accepted it.
#pragma once

#include <functional>
#include <optional>

#include "comm_zoo.h"
#include "guarded_buffer.h"
#include "harness.h"
#include "ordo/reference/case.h"
#include "ordo/reference/oracle.h"

namespace ordo::harness {

// What a check's own judgement sees after the call.
struct CaseContext {
  const ref::Case& c;
  const ZooComm& z;
  const ref::RankPlan& plan;
  const std::optional<GuardedBuffer>& recv;
};

struct CaseOptions {
  // Runs on every participating rank after the standard judgement passed.
  std::function<LocalVerdict(const CaseContext&)> extra;
  // SHOULD: the same call repeated gives a bit-identical result.
  bool repeat = false;
  // DETECT: the error class an error code that came back must have (the
  // ABI checks: the header fixes the classes), else a failure; -1: any class.
  int detect_class = -1;
  // Benchmarks only: stop right after the call (no judgement, no record).
  bool bare_call = false;
};

// Collective over MPI_COMM_WORLD: every rank calls it with the same case.
Outcome run_case(const ref::Case& c, const CaseOptions& options = {});

// The throughput benchmark (bench/property_throughput): the call of a case
// alone, with the buffers, datatype and op run_case would pass, after a
// point-to-point barrier; no judgement, no record. Collective over
// MPI_COMM_WORLD; returns the seconds this rank spent in the call (0 on a
// rank outside the case's communicator). The level declared for the
// running check decides whether the case is erroneous (DETECT).
double time_bare_call(const ref::Case& c);

// Roots a reduce case can take on a shape: the size of the smallest
// communicator of the shape (intra), or of the given group (inter).
int root_count(const std::string& shape, bool high_group = false);

// Whether the library provides a routine the case needs (persistent,
// large-count); the reason when it does not.
std::optional<std::string> missing_feature(const ref::Case& c);

}  // namespace ordo::harness
