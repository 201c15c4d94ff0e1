// The folds shared by the processes of a case (oracle.h): every process's
// expected result made from the rows of shared_folds, range by range, is
// the expected result plan() gives that process (every value, every byte
// outside the typemap), for the
// four routines, in place or not, predefined and user (witness) ops, exact
// and inexact inputs, datatypes with holes and a negative lower bound, and
// ranges of every size from one element to the whole count.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "ordo/reference/errors.h"
#include "ordo/reference/oracle.h"

using namespace ordo::ref;

namespace {

// The expected result of every rank of `t`, assembled from ranges of
// `range` elements, against plan()'s.
void expect_folds_make_the_plan(const Case& c, const Topology& t, int range) {
  ASSERT_TRUE(folds_shareable(c, t)) << c.describe();
  const int rows = shared_fold_rows(c, t);
  std::vector<std::vector<Buffer>> ranges;  // [range][row]
  for (int first = 0; first < c.count; first += range)
    ranges.push_back(shared_folds(c, t, first, std::min(range, c.count - first)));
  for (const auto& r : ranges) ASSERT_EQ(static_cast<int>(r.size()), rows);
  for (int rank = 0; rank < t.size_low; ++rank) {
    const Role me{0, rank};
    SCOPED_TRACE(c.describe() + " rank " + std::to_string(rank) + ", ranges of " +
                 std::to_string(range));
    const RankPlan whole = plan(c, t, me);
    const RankPlan own = plan_buffers(c, t, me);
    const int row = shared_fold_row_of(c, t, me);
    if (!whole.result_defined || !whole.recv_significant) {  // Exscan's rank 0, Reduce's non-roots
      EXPECT_EQ(row, -1);
      continue;
    }
    ASSERT_GE(row, 0);
    ASSERT_TRUE(whole.recv_expected && own.recv_initial);
    Buffer mine = *own.recv_initial;
    int first = 0;
    for (const auto& r : ranges) {
      write_fold_range(r[static_cast<std::size_t>(row)], first, mine);
      first += r[0].count();
    }
    // The same values, and the same bytes outside the typemap (holes); a long
    // double's 6 bytes of padding carry no value (plan()'s hold what the
    // arithmetic left there) and are compared by no judgement.
    const Difference d = first_difference(*whole.recv_expected, mine);
    EXPECT_FALSE(d.any) << "element " << d.element << " byte " << d.byte << ": expected "
                        << d.expected << ", assembled " << d.observed;
    EXPECT_EQ(value_bytes(mine), value_bytes(*whole.recv_expected));
    EXPECT_EQ(mine.storage().size(), whole.recv_expected->storage().size());
  }
}

}  // namespace

TEST(SharedFolds, every_rank_gets_the_expected_result_of_plan) {
  const Routine routines[] = {Routine::reduce, Routine::allreduce, Routine::scan, Routine::exscan};
  struct Kind {
    const char* op;
    const char* datatype;
    bool exact;
  };
  const Kind kinds[] = {
      {"MPI_SUM", "MPI_INT", true},
      {"MPI_PROD", "MPI_DOUBLE", true},
      {"MPI_SUM", "MPI_DOUBLE", false},  // full mantissas: the fold's order shows in the bits
      {"MPI_SUM", "MPI_LONG_DOUBLE", false},
      {"MPI_SUM", "MPI_C_DOUBLE_COMPLEX", true},
      {"MPI_PROD", "MPI_C_LONG_DOUBLE_COMPLEX", true},
      {"MPI_BXOR", "MPI_LONG", true},
      {"witness.multiset", "vector(2,4,6,MPI_INT)", true},  // holes between the leaves
      {"witness.matrix", "resized(-16,48,contiguous(4,MPI_INT))", true},  // before and after
      {"MPI_MINLOC", "MPI_DOUBLE_INT", true},
      {"MPI_MAXLOC", "MPI_LONG_DOUBLE_INT", true},
      {"witness.multiset", "contiguous(8,MPI_INT)", true},
      {"witness.matrix", "contiguous(8,MPI_INT)", true},
      {"witness.tracer", "contiguous(4,MPI_INT)", true},
  };
  for (Routine routine : routines)
    for (const Kind& k : kinds)
      for (bool in_place : {false, true})
        for (int p : {2, 3, 5}) {
          Case c;
          c.routine = routine;
          c.op = k.op;
          c.datatype = k.datatype;
          c.exact = k.exact;
          c.in_place = in_place;
          c.count = 11;
          c.seed = 4242;
          c.root = p - 1;
          for (int range : {1, 4, 11}) expect_folds_make_the_plan(c, Topology{false, p, 0}, range);
        }
}

TEST(SharedFolds, the_rows_of_each_routine) {
  Case c;
  c.op = "MPI_SUM";
  c.datatype = "MPI_INT";
  c.count = 3;
  const Topology t{false, 4, 0};
  c.routine = Routine::allreduce;
  EXPECT_EQ(shared_fold_rows(c, t), 1);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(shared_fold_row_of(c, t, Role{0, r}), 0);
  c.routine = Routine::scan;
  EXPECT_EQ(shared_fold_rows(c, t), 4);
  EXPECT_EQ(shared_fold_row_of(c, t, Role{0, 3}), 3);
  c.routine = Routine::exscan;
  EXPECT_EQ(shared_fold_rows(c, t), 3);
  EXPECT_EQ(shared_fold_row_of(c, t, Role{0, 0}), -1);
  EXPECT_EQ(shared_fold_row_of(c, t, Role{0, 3}), 2);
  EXPECT_THROW(shared_fold_row_of(c, t, Role{0, 4}), UsageError);
  c.routine = Routine::reduce;
  c.root = 2;
  EXPECT_EQ(shared_fold_rows(c, t), 1);
  EXPECT_EQ(shared_fold_row_of(c, t, Role{0, 2}), 0);
  EXPECT_EQ(shared_fold_row_of(c, t, Role{0, 1}), -1);
  // Scan's rows by hand: the inputs of ranks 0..q summed.
  c.routine = Routine::scan;
  const std::vector<Buffer> rows = shared_folds(c, t, 1, 2);
  ASSERT_EQ(rows.size(), 4u);
  for (int e = 0; e < 2; ++e) {
    long long sum = 0;
    for (int q = 0; q < 4; ++q) {
      int x = 0;
      std::memcpy(&x, make_input(c, Datatype::parse("MPI_INT"), 3, 0, q).element(1 + e), 4);
      sum += x;
      int got = 0;
      std::memcpy(&got, rows[static_cast<std::size_t>(q)].element(e), 4);
      EXPECT_EQ(got, static_cast<int>(sum));
    }
  }
  EXPECT_THROW(shared_folds(c, t, 2, 2), UsageError);
}

TEST(SharedFolds, only_the_cases_they_serve) {
  Case c;
  c.routine = Routine::allreduce;
  c.op = "MPI_SUM";
  c.datatype = "MPI_INT";
  c.count = 4;
  EXPECT_TRUE(folds_shareable(c, Topology{false, 2, 0}));
  EXPECT_FALSE(folds_shareable(c, Topology{false, 1, 0}));  // one rank: nothing to share
  EXPECT_FALSE(folds_shareable(c, Topology{true, 2, 2}));   // an intercommunicator
  for (Routine r : {Routine::reduce_scatter, Routine::reduce_scatter_block, Routine::reduce_local,
                    Routine::reduce_locals}) {
    Case other = c;
    other.routine = r;
    EXPECT_FALSE(folds_shareable(other, Topology{false, 2, 0}));
  }
  Case root_datatype = c;
  root_datatype.routine = Routine::reduce;
  root_datatype.root_datatype = "contiguous(1,MPI_INT)";
  EXPECT_FALSE(folds_shareable(root_datatype, Topology{false, 2, 0}));
  Case aliased = c;
  aliased.alias_send_recv = true;
  EXPECT_FALSE(folds_shareable(aliased, Topology{false, 2, 0}));
  Case overlapping = c;  // elements 4 bytes apart, 8 bytes long
  overlapping.datatype = "resized(0,4,contiguous(2,MPI_INT))";
  EXPECT_FALSE(folds_shareable(overlapping, Topology{false, 2, 0}));
  Case empty = c;
  empty.count = 0;
  EXPECT_FALSE(folds_shareable(empty, Topology{false, 2, 0}));
  EXPECT_THROW(shared_folds(overlapping, Topology{false, 2, 0}, 0, 1), UsageError);
}
