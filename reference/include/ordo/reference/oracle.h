// The oracle: for a case, a communicator topology and one rank, the buffers
// that rank passes to MPI and the receive buffer it must get back. Inputs are
// a pure function of (case, group, rank), so every rank can compute every
// other rank's inputs and the full rank-ordered fold by itself.
#pragma once

#include <optional>
#include <vector>

#include "ordo/reference/buffer.h"
#include "ordo/reference/case.h"
#include "ordo/reference/op.h"
#include "ordo/reference/witness.h"

namespace ordo::ref {

struct Topology {
  bool inter = false;
  int size_low = 1;   // intracommunicator: its size
  int size_high = 0;  // intercommunicator: the second group (ranks of the higher world ranks)
};

struct Role {
  int group = 0;  // 0: low group (or the intracommunicator), 1: high group
  int rank = 0;   // rank in its group
};

// The recvcounts of a reduce_scatter case on a topology: the case's own, or
// the default uneven pattern (rank i of a group gets count + (i % 3) - 1
// elements, at least 0; on an intercommunicator the high group's counts are
// rebalanced so that both groups reduce the same number of elements).
// reduce_scatter_block on an intercommunicator: {low, high} per-rank counts.
std::vector<int> effective_recvcounts(const Case& c, const Topology& t);

struct RankPlan {
  std::string datatype;  // the datatype (text) this rank passes
  int send_count = 0;
  int recv_count = 0;
  bool send_significant = true;  // false: pass MPI's value of "not significant" (NULL)
  bool recv_significant = true;
  bool result_defined = true;     // exscan rank 0: undefined
  std::optional<Buffer> send;     // absent when not significant or in place
  std::optional<Buffer> arg;      // reduce_locals: argbuf, when it is a buffer of its own
  int recv_compare_elements = 0;  // leading elements of recv that hold the result
  std::optional<Buffer> recv_initial;
  std::optional<Buffer> recv_expected;
  int mpi_root = 0;  // the root argument this rank passes (MPI_ROOT etc. resolved
                     // by the caller from root_role)
  enum class RootRole {
    none,
    root,
    other_in_root_group,
    in_other_group
  } root_role = RootRole::none;
};

// The op a case names (predefined or witness), ready for the reference.
Op op_for_case(const Case& c);
// Checks that the case is well formed and not erroneous; throws
// SemanticsError (erroneous per the standard) or UsageError (malformed).
void validate_case(const Case& c, const Topology& t);
// Input of a rank (the send buffer contents, or the in-place input):
// elements [first, first + count) of it.
Buffer make_input(const Case& c, const Datatype& dt, int count, int group, int rank, int first = 0);
// The initial contents of a receive buffer: a pattern that marks holes.
Buffer make_recv_initial(const Case& c, const Datatype& dt, int count, int group, int rank);
// With erroneous = true (DETECT checks) the case is not validated and no
// expected result is computed: only the buffers the call takes.
RankPlan plan(const Case& c, const Topology& t, Role me, bool erroneous = false);
// The same plan as plan(c, t, me) (validated; every field the same) but
// without recv_expected, made from this rank's own buffers alone: no other
// rank's input is made and nothing is reduced. For a caller that has the
// expected result's digest from an earlier plan() of the same case, topology
// and role (the harness's expected-result cache), and computes plan() only
// when the library's result does not match it.
RankPlan plan_buffers(const Case& c, const Topology& t, Role me);

// ---- Cases planned a range of elements at a time ----
// A huge case (more than 2^31 bytes per buffer: the large-count bindings)
// cannot be planned by plan(), which holds every rank's input and result at
// once (p + 3 buffers of the whole count per process). These give the same
// plan a range of elements at a time, from the same inputs and the same
// rank-ordered fold: the counts and roles of plan() without its buffers,
// then this rank's send elements, its receive buffer's initial elements and
// the expected result of elements [first, first + n) of it. They take one
// blocking call of an intracommunicator collective or MPI_Reduce_local, not
// in place, without a root datatype, of a datatype whose elements tile
// their extent from lower bound 0; any other case throws UsageError.
// Throws UsageError (why) unless the case can be planned by ranges.
void check_plannable_by_ranges(const Case& c, const Topology& t);
RankPlan plan_without_buffers(const Case& c, const Topology& t, Role me);
Buffer input_range(const Case& c, Role me, int first, int n);
Buffer recv_initial_range(const Case& c, Role me, int first, int n);
Buffer expected_range(const Case& c, const Topology& t, Role me, int first, int n);

// The send element that element `recv_element` of me's receive buffer
// reduces (Reduce_scatter and Reduce_scatter_block: shifted by the blocks of
// the ranks before me; the others: the same index).
int send_element_of(const Case& c, const Topology& t, Role me, int recv_element);
// A witness.multiset case: every process's input cells, marked with whether
// me's result must hold them (the rank-order rules of each routine: the
// other group on an intercommunicator, ranks 0..me for Scan, 0..me-1 for
// Exscan, all otherwise), for witness::explain_multiset.
std::vector<witness::Contribution> multiset_contributions(const Case& c, const Topology& t,
                                                          Role me);

}  // namespace ordo::ref
