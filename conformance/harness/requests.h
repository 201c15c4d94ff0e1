// The requests of a case beyond its one call: a persistent request started
// again with new input, several nonblocking calls outstanding at once
// (concurrency "outstanding"), the datatype and op freed while the call's
// request is pending (concurrency "freed").
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "comm_zoo.h"
#include "guarded_buffer.h"
#include "harness.h"
#include "mpi_dispatch.h"
#include "ordo/reference/case.h"
#include "planning.h"

namespace ordo::harness {

// The buffers a call was handed, and a persistent request kept for its next
// starts: they outlive the first call's judgement (run_on_rank).
struct CallState {
  std::optional<GuardedBuffer> send, recv, arg;
  std::ptrdiff_t send_origin = 0;
  MPI_Request kept = MPI_REQUEST_NULL;
  // The arrays the call read (mpi_dispatch.h Args::hold), kept with its
  // request: freed after ~CallState has freed kept.
  std::shared_ptr<const void> arrays;
  CallState() = default;
  CallState(const CallState&) = delete;
  CallState& operator=(const CallState&) = delete;
  ~CallState();
};

// ---- Persistent requests ----
// How often a persistent request is started, new input before each start
// after the first (MPI-4.1 6.13: a persistent collective request is started
// any number of times, and each start reads the buffers as they are then).
constexpr int kPersistentStarts = 3;

// The seed of the inputs of start `start` (0: the case's own); also of
// outstanding call `start`.
std::uint64_t start_seed(std::uint64_t seed, int start);

// Start `start` (1, 2, ...) of the kept persistent request: the inputs of a
// new seed written into the same buffers, the request started and
// completed, the result judged against the reference for those inputs.
std::optional<LocalVerdict> restart(const ref::Case& c, const ZooComm& z, int start, CallState* st);

// ---- Outstanding calls ----
// How many calls of the case are outstanding at once (the case's own and
// the others, each with its own inputs and buffers), completed in reverse
// order.
constexpr int kOutstanding = 3;
struct OutstandingCall {
  ref::Case c;
  Planned planned;
  std::optional<ref::Buffer> dummy_send;
  std::optional<GuardedBuffer> send, recv;
  std::vector<std::byte> send_before;
  std::ptrdiff_t send_origin = 0;
  MPI_Request req = MPI_REQUEST_NULL;
  std::shared_ptr<const void> arrays;  // held while req may read them
  int rc = MPI_SUCCESS;
};
using OutstandingCalls = std::deque<OutstandingCall>;

// The other calls, started while the case's own (its request *pending) is
// pending, on the same communicator with the same arguments and their own
// inputs; then all completed, the last started first, the case's own last.
// Returns the case's own completion's code.
int call_outstanding(const ref::Case& c, const ZooComm& z, const ref::Datatype& dt,
                     bool in_place_here, const CallHandles& h, MPI_Request* pending,
                     OutstandingCalls* others);

// After the call: the expected results of the others (with_expected).
void expect_outstanding(const ZooComm& z, OutstandingCalls* others);

// The others judged, in the order they were started.
std::optional<LocalVerdict> judge_outstanding(const OutstandingCalls& others,
                                              const std::string& routine, const ZooComm& z);

// ---- Handles freed while the call is pending ----
// A datatype (when not predefined) and an op handle made for this call
// alone, into *call_dt and *call_op (else h's); the verdict when they
// cannot be made.
std::optional<LocalVerdict> fresh_handles(const ref::Case& c, const ref::Datatype& dt,
                                          const ZooComm& z, CallHandles* h, MPI_Datatype* call_dt,
                                          MPI_Op* call_op);

// Frees them while the request *pending is pending, then completes it (when
// the call returned MPI_SUCCESS). Returns the call's code, or its
// completion's; *error gets a free's failure.
int free_while_pending(const ref::Datatype& dt, const CallHandles& h, MPI_Datatype call_dt,
                       MPI_Op call_op, int rc, MPI_Request* pending, std::string* error);

}  // namespace ordo::harness
