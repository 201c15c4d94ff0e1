// Huge cases, planned a range of elements at a time.
//
// A case whose buffers hold more than kWholePlanBytes is never planned whole:
// plan() holds every rank's input and result at once, which for the huge
// counts of the large-count bindings (more than 2^31 bytes per buffer) is
// p + 3 buffers of over 2 GiB per process, and the judgement copies the
// buffers again. Instead the reference gives the inputs, the receive
// buffer's initial contents and the expected result kRangeBytes at a time
// (ref::plan_without_buffers, input_range, recv_initial_range,
// expected_range), written into and compared with the library's buffers in
// place: this process holds its send and receive buffers (with their guard
// bytes) and a few ranges, and the judgement is the same in full: values
// against the reference, the send buffer unchanged, the guard bytes intact.
#pragma once

#include "comm_zoo.h"
#include "executor.h"
#include "ordo/reference/case.h"
#include "run_on_rank.h"

namespace ordo::harness {

// Whether the case is judged by ranges: large, and of the kind the ranges
// serve (ref::check_plannable_by_ranges; exact values, bit for bit; no
// repeated call, no judgement of the check's own); any other case is
// planned whole.
bool planned_by_ranges(const ref::Case& c, const CaseOptions& options, const ZooComm& z);

// The case's call and its judgement, a range at a time.
RankResult call_by_ranges(const ref::Case& c, const CaseOptions& options, const ZooComm& z);

}  // namespace ordo::harness
