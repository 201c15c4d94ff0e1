// Planning a range of elements at a time (the huge cases of the large-count
// bindings): for every routine the range functions give, range by range,
// exactly the buffers and result plan() gives for the whole case.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "ordo/reference/errors.h"
#include "ordo/reference/oracle.h"

using namespace ordo::ref;

namespace {

// The bytes of elements [first, first + n) of a buffer of a datatype whose
// elements stay within their extent (lb 0).
std::vector<std::byte> element_bytes(const Buffer& b, int first, int n) {
  const auto extent = static_cast<std::size_t>(b.type().extent());
  std::vector<std::byte> out(static_cast<std::size_t>(n) * extent);
  if (n > 0) std::memcpy(out.data(), b.element(first), out.size());
  return out;
}

// Every rank's plan() against the range functions, over ranges of 3 elements.
void expect_ranges_match_plan(const Case& c, const Topology& t) {
  for (int r = 0; r < t.size_low; ++r) {
    const Role me{0, r};
    const RankPlan whole = plan(c, t, me);
    const RankPlan shape = plan_without_buffers(c, t, me);
    SCOPED_TRACE(c.describe() + " rank " + std::to_string(r));
    EXPECT_EQ(shape.send_count, whole.send_count);
    EXPECT_EQ(shape.recv_compare_elements, whole.recv_compare_elements);
    EXPECT_EQ(shape.recv_significant, whole.recv_significant);
    EXPECT_EQ(shape.result_defined, whole.result_defined);
    for (int first = 0; first < shape.send_count; first += 3) {
      const int n = std::min(3, shape.send_count - first);
      EXPECT_EQ(element_bytes(input_range(c, me, first, n), 0, n),
                element_bytes(*whole.send, first, n));
    }
    for (int first = 0; first < shape.recv_compare_elements; first += 3) {
      const int n = std::min(3, shape.recv_compare_elements - first);
      EXPECT_EQ(element_bytes(recv_initial_range(c, me, first, n), 0, n),
                element_bytes(*whole.recv_initial, first, n));
      if (!whole.recv_expected || !whole.result_defined) {  // a non-root, Exscan at rank 0
        EXPECT_THROW(expected_range(c, t, me, first, n), UsageError);
        continue;
      }
      EXPECT_EQ(element_bytes(expected_range(c, t, me, first, n), 0, n),
                element_bytes(*whole.recv_expected, first, n));
    }
  }
}

}  // namespace

TEST(RangePlan, every_routine_planned_by_ranges_gives_the_whole_plan) {
  const Routine routines[] = {
      Routine::reduce, Routine::allreduce, Routine::reduce_scatter, Routine::reduce_scatter_block,
      Routine::scan,   Routine::exscan,    Routine::reduce_local};
  for (Routine routine : routines)
    for (const char* op : {"witness.multiset", "witness.matrix"})
      for (int p : {1, 3}) {
        Case c;
        c.routine = routine;
        c.op = op;
        c.datatype = "contiguous(8,MPI_INT)";
        c.count = 7;
        c.root = p - 1;
        c.large_count = true;
        c.seed = 9;
        expect_ranges_match_plan(c, Topology{false, routine == Routine::reduce_local ? 1 : p, 0});
      }
  // Predefined ops on basic types, byte for byte: the padding of a long
  // double (6 bytes after its 10) is the same in every input made.
  for (const char* type : {"MPI_INT", "MPI_LONG_DOUBLE", "MPI_C_LONG_DOUBLE_COMPLEX"}) {
    Case basic;
    basic.routine = Routine::allreduce;
    basic.op = "MPI_SUM";
    basic.datatype = type;
    basic.count = 10;
    expect_ranges_match_plan(basic, Topology{false, 2, 0});
  }
}

TEST(RangePlan, cases_that_are_not_one_blocking_intracommunicator_call_are_refused) {
  Case c;
  c.op = "witness.multiset";
  c.datatype = "contiguous(4,MPI_INT)";
  c.count = 2;
  Case in_place = c;
  in_place.routine = Routine::allreduce;
  in_place.in_place = true;
  EXPECT_THROW(plan_without_buffers(in_place, Topology{false, 2, 0}, Role{0, 0}), UsageError);
  Case nonblocking = c;
  nonblocking.mode = Mode::nonblocking;
  EXPECT_THROW(plan_without_buffers(nonblocking, Topology{false, 2, 0}, Role{0, 0}), UsageError);
  EXPECT_THROW(plan_without_buffers(c, Topology{true, 2, 2}, Role{0, 0}), UsageError);
  Case negative_lb = c;
  negative_lb.datatype = "resized(-16,32,contiguous(4,MPI_INT))";
  EXPECT_THROW(plan_without_buffers(negative_lb, Topology{false, 2, 0}, Role{0, 0}), UsageError);
}
