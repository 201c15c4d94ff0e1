// The reference's folds of a case, made once by the processes of a node
// between them rather than once by each (ref::folds_shareable: a valid
// Reduce, Allreduce, Scan or Exscan on an intracommunicator).
//
// Every expected result of such a case is built from the same rows: the
// fold of every rank's input (Reduce's root, Allreduce), Scan's and Exscan's
// running folds. Each process used to make what it needed itself: for
// Allreduce, p processes on a node made p times the inputs and the combines
// of one, and Reduce's root made them all while the other processes waited
// (at 8 ranks on 2 cores, the largest part of a case's reference and of the
// verdict waits). Here
// the processes of a job that share a machine map one store (POSIX shared
// memory, named by rank 0 at start-up and unlinked once every process has
// opened it): before the call, each process of the case claims ranges of
// elements not yet claimed and writes their rows (ref::shared_folds); after
// the call it waits for the ranges the others claimed and writes its own
// row into its receive buffer's initial contents (ref::write_fold_range).
//
// Nothing here passes through the library under test after start-up: the
// rows go through the store, and the store is only a way of computing less.
// A case the store cannot hold, a slot another case holds, a store that
// could not be made, or a range that no process finished within a few
// seconds (its process died): this process makes what it lacks itself, by
// the same functions. The expected result is the same either way (the
// reference's own tests: SharedFolds.*); ORDO_SHARED_FOLDS=0 in the
// environment turns the store off, to compare.
#pragma once

#include <mpi.h>

#include <memory>
#include <optional>

#include "ordo/reference/buffer.h"
#include "ordo/reference/case.h"
#include "ordo/reference/oracle.h"

namespace ordo::harness::shared_folds {

// Collective over `comm` (the job's): rank 0 names the store and its layout,
// every process maps it, and it is unlinked after a barrier.
void open(MPI_Comm comm);

class Claim;

// Before the call: this process's share of the case's folds made, and its
// hold on them until finish(). nullptr: the case is not served by the store
// (then the caller plans the case itself, as without it).
std::shared_ptr<Claim> begin(const ref::Case& c, const ref::Topology& t);

// After the call: me's expected result, `initial` (its receive buffer's
// initial contents, ref::plan_buffers) with me's row written in; nullopt
// when me has no defined result (Exscan's rank 0). Releases the hold.
std::optional<ref::Buffer> finish(Claim& claim, const ref::Case& c, const ref::Topology& t,
                                  ref::Role me, const ref::Buffer& initial);

// This process's use of the store (rank 0's in the phases line).
struct Counts {
  long long cases = 0;         // cases whose folds came from the store
  long long ranges_made = 0;   // ranges this process made for the store
  long long ranges_read = 0;   // ranges its expected results were read from (any process's)
  long long ranges_alone = 0;  // ranges made for itself: no process finished them in time
  long long not_held = 0;      // shareable cases the store could not take (size, slot busy)
};
Counts counts();
bool enabled();

}  // namespace ordo::harness::shared_folds
