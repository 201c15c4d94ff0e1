// The oracle: for a case, a communicator topology and one rank, the buffers
// that rank passes to MPI and the receive buffer it must get back. Inputs are
// a pure function of (case, group, rank), so every rank can compute every
// other rank's inputs and the full rank-ordered fold by itself.
// Implemented in three files: src/oracle_inputs.cpp (make_input,
// make_recv_initial and their range versions), src/oracle_validation.cpp
// (op_for_case, effective_recvcounts, validate_case,
// check_plannable_by_ranges) and src/oracle_planning.cpp (the rest).
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

// ---- The folds shared by the processes of a case ----
// Of a valid Reduce, Allreduce, Scan or Exscan on an intracommunicator, every
// expected result is a receive buffer's initial contents with one row of the
// case's folds written into its elements: Reduce's and Allreduce's one row,
// the fold of every rank's input (Reduce: the root's result); Scan's row q,
// the running fold of ranks 0..q (rank q's result); Exscan's the same rows
// 0..p-2 (rank q's result is row q-1). The rows do not depend on the
// process, so the processes of a case can make them once between them, a
// range of elements at a time (shared_folds: the same inputs and the same
// rank-ordered fold as plan()), and each process takes its own row
// (write_fold_range): plan()'s expected result, every value and every byte
// outside the typemap. folds_shareable says which cases these serve: the
// four routines, a valid call (no erroneous argument, no aliased buffers, no
// root datatype), more than one rank, and a datatype whose elements do not
// overlap (positive extent at least the true extent), so that a range of
// elements reads and writes only its own bytes.
bool folds_shareable(const Case& c, const Topology& t);
// The number of rows (Reduce and Allreduce 1, Scan p, Exscan p - 1).
int shared_fold_rows(const Case& c, const Topology& t);
// The row of me's expected result; -1 where it has none (Exscan's rank 0,
// Reduce's other ranks).
int shared_fold_row_of(const Case& c, const Topology& t, Role me);
// Rows [0, shared_fold_rows) of elements [first, first + n).
std::vector<Buffer> shared_folds(const Case& c, const Topology& t, int first, int n);
// me's expected result: `initial` (plan_buffers' recv_initial) with `row`'s
// elements [0, n) written at elements [first, first + n); called once per
// range, every range of the count once.
void write_fold_range(const Buffer& row, int first, Buffer& initial);

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
