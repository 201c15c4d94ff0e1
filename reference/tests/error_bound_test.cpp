// The error bound of inexact floating-point results (error_bound.h): the
// number of contributions per routine, the values of a datatype it bounds,
// its size, and the comparison.
#include "ordo/reference/error_bound.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "test_util.h"

using namespace ordo::ref;
using ordo::ref::test::load;
using ordo::ref::test::store;

namespace {

Case inexact(Routine r, const std::string& dt, int count) {
  Case c;
  c.routine = r;
  c.op = "MPI_SUM";
  c.datatype = dt;
  c.count = count;
  c.seed = 7;
  c.exact = false;
  return c;
}

Topology intra(int p) { return Topology{false, p, 0}; }

constexpr long double kEps64 = std::numeric_limits<double>::epsilon();

}  // namespace

TEST(ErrorBound, contributions_follow_the_routine) {
  const Topology t = intra(5);
  EXPECT_EQ(contributions(inexact(Routine::reduce, "MPI_DOUBLE", 1), t, {0, 3}), 5);
  EXPECT_EQ(contributions(inexact(Routine::allreduce, "MPI_DOUBLE", 1), t, {0, 0}), 5);
  EXPECT_EQ(contributions(inexact(Routine::reduce_scatter_block, "MPI_DOUBLE", 1), t, {0, 4}), 5);
  // Scan at rank r: ranks 0..r; Exscan at rank r: ranks 0..r-1.
  EXPECT_EQ(contributions(inexact(Routine::scan, "MPI_DOUBLE", 1), t, {0, 0}), 1);
  EXPECT_EQ(contributions(inexact(Routine::scan, "MPI_DOUBLE", 1), t, {0, 3}), 4);
  EXPECT_EQ(contributions(inexact(Routine::exscan, "MPI_DOUBLE", 1), t, {0, 1}), 1);
  EXPECT_EQ(contributions(inexact(Routine::exscan, "MPI_DOUBLE", 1), t, {0, 4}), 4);
  EXPECT_EQ(contributions(inexact(Routine::reduce_local, "MPI_DOUBLE", 1), intra(1), {0, 0}), 2);
  // Intercommunicator: the other group.
  const Topology inter{true, 2, 3};
  EXPECT_EQ(contributions(inexact(Routine::allreduce, "MPI_DOUBLE", 1), inter, {0, 1}), 3);
  EXPECT_EQ(contributions(inexact(Routine::allreduce, "MPI_DOUBLE", 1), inter, {1, 2}), 2);
}

TEST(ErrorBound, every_leaf_of_a_derived_type_is_a_value) {
  // struct: a double at 0, an int at 8, a float at 12.
  const auto s =
      value_slots(Datatype::parse("struct([1,1,1],[0,8,12],[MPI_DOUBLE,MPI_INT,MPI_FLOAT])"));
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].offset, 0);
  EXPECT_EQ(s[0].scalar, Scalar::f64);
  EXPECT_EQ(s[1].offset, 8);
  EXPECT_EQ(s[1].scalar, Scalar::i32);
  EXPECT_EQ(s[2].offset, 12);
  EXPECT_EQ(s[2].scalar, Scalar::f32);
  // A complex leaf is two values (its components), a pair two (value, index).
  const auto z = value_slots(Datatype::parse("MPI_C_DOUBLE_COMPLEX"));
  ASSERT_EQ(z.size(), 2u);
  EXPECT_EQ(z[1].offset, 8);
  EXPECT_EQ(z[1].scalar, Scalar::f64);
  EXPECT_EQ(z[1].component, 1);
  const auto pair = value_slots(Datatype::parse("MPI_DOUBLE_INT"));
  ASSERT_EQ(pair.size(), 2u);
  EXPECT_EQ(pair[0].scalar, Scalar::f64);
  EXPECT_EQ(pair[1].offset, 8);
  EXPECT_EQ(pair[1].scalar, Scalar::i32);
  // A vector with a hole: two leaves, 2 x 8 bytes apart.
  const auto v = value_slots(Datatype::parse("vector(2,1,2,MPI_DOUBLE)"));
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[1].offset, 16);
}

TEST(ErrorBound, a_sum_is_bounded_by_two_n_minus_one_eps_times_the_sum_of_magnitudes) {
  const Case c = inexact(Routine::reduce, "MPI_DOUBLE", 3);
  const Topology t = intra(4);
  const RankPlan plan = ordo::ref::plan(c, t, {0, 0});
  const auto b = error_bound(c, t, {0, 0}, plan);
  ASSERT_EQ(b.size(), 3u);
  const Datatype dt = Datatype::parse("MPI_DOUBLE");
  for (int k = 0; k < 3; ++k) {
    long double mag = 0;
    for (int r = 0; r < 4; ++r)
      mag +=
          std::fabs(static_cast<long double>(load<double>(make_input(c, dt, 3, 0, r).element(k))));
    EXPECT_EQ(b[static_cast<std::size_t>(k)][0], 2 * 3 * kEps64 * mag) << "element " << k;
    EXPECT_GT(b[static_cast<std::size_t>(k)][0], 0);
  }
}

TEST(ErrorBound, a_reduce_scatter_block_is_bounded_by_the_elements_of_its_own_block) {
  // Rank r's block k of every input, read from each whole input (the bound
  // makes only the block's elements).
  for (Routine r : {Routine::reduce_scatter_block, Routine::reduce_scatter}) {
    Case c = inexact(r, "MPI_DOUBLE", 3);
    if (r == Routine::reduce_scatter) c.recvcounts = {2, 3, 1, 4};
    const Topology t = intra(4);
    for (int rank = 0; rank < 4; ++rank) {
      const RankPlan plan = ordo::ref::plan(c, t, {0, rank});
      const auto b = error_bound(c, t, {0, rank}, plan);
      const int first = send_element_of(c, t, {0, rank}, 0);
      ASSERT_EQ(static_cast<int>(b.size()), plan.recv_compare_elements);
      const Datatype dt = Datatype::parse("MPI_DOUBLE");
      for (int k = 0; k < plan.recv_compare_elements; ++k) {
        long double mag = 0;
        for (int q = 0; q < 4; ++q)
          mag += std::fabs(static_cast<long double>(
              load<double>(make_input(c, dt, plan.send_count, 0, q).element(first + k))));
        EXPECT_EQ(b[static_cast<std::size_t>(k)][0], 2 * 3 * kEps64 * mag)
            << routine_name(r) << " rank " << rank << " element " << k;
      }
    }
  }
}

TEST(ErrorBound, scan_and_exscan_bound_by_their_prefix) {
  const Topology t = intra(4);
  const Datatype dt = Datatype::parse("MPI_DOUBLE");
  const Case scan = inexact(Routine::scan, "MPI_DOUBLE", 1);
  // Rank 0 of a Scan receives its own input: an exact copy, bound 0.
  EXPECT_EQ(error_bound(scan, t, {0, 0}, plan(scan, t, {0, 0}))[0][0], 0);
  // Rank 2: ranks 0..2, n = 3, bound 2 * 2 * eps * (|x0| + |x1| + |x2|), not the whole
  // communicator's.
  long double mag = 0;
  for (int r = 0; r < 3; ++r)
    mag +=
        std::fabs(static_cast<long double>(load<double>(make_input(scan, dt, 1, 0, r).element(0))));
  EXPECT_EQ(error_bound(scan, t, {0, 2}, plan(scan, t, {0, 2}))[0][0], 4 * kEps64 * mag);
  const Case ex = inexact(Routine::exscan, "MPI_DOUBLE", 1);
  // Exscan: rank 0's result is undefined (no bound), rank 1's is rank 0's input (0).
  EXPECT_TRUE(error_bound(ex, t, {0, 0}, plan(ex, t, {0, 0})).empty());
  EXPECT_EQ(error_bound(ex, t, {0, 1}, plan(ex, t, {0, 1}))[0][0], 0);
  EXPECT_GT(error_bound(ex, t, {0, 3}, plan(ex, t, {0, 3}))[0][0], 0);
}

TEST(ErrorBound, every_part_of_a_leaf_is_bounded_and_exact_values_get_zero) {
  const Topology t = intra(3);
  // A complex leaf: each component by the sum of that component's magnitudes.
  const Case z = inexact(Routine::allreduce, "MPI_C_DOUBLE_COMPLEX", 1);
  const auto bz = error_bound(z, t, {0, 1}, plan(z, t, {0, 1}));
  ASSERT_EQ(bz.size(), 1u);
  ASSERT_EQ(bz[0].size(), 2u);
  const Datatype zt = Datatype::parse("MPI_C_DOUBLE_COMPLEX");
  for (int part = 0; part < 2; ++part) {
    long double mag = 0;
    for (int r = 0; r < 3; ++r)
      mag += std::fabs(
          static_cast<long double>(load<double>(make_input(z, zt, 1, 0, r).element(0) + 8 * part)));
    EXPECT_EQ(bz[0][static_cast<std::size_t>(part)], 2 * 2 * kEps64 * mag) << "part " << part;
  }
  // Integers, and exact ops on floating point, are compared exactly.
  const Case i = inexact(Routine::allreduce, "MPI_INT", 2);
  EXPECT_EQ(error_bound(i, t, {0, 1}, plan(i, t, {0, 1}))[1][0], 0);
  Case max = inexact(Routine::allreduce, "MPI_DOUBLE", 1);
  max.op = "MPI_MAX";
  EXPECT_EQ(error_bound(max, t, {0, 1}, plan(max, t, {0, 1}))[0][0], 0);
  // A pair: the value and the index, both exact under MAXLOC.
  Case loc = inexact(Routine::allreduce, "MPI_DOUBLE_INT", 1);
  loc.op = "MPI_MAXLOC";
  const auto bl = error_bound(loc, t, {0, 0}, plan(loc, t, {0, 0}));
  ASSERT_EQ(bl[0].size(), 2u);
  EXPECT_EQ(bl[0][0], 0);
  EXPECT_EQ(bl[0][1], 0);
}

TEST(ErrorBound, the_first_value_outside_its_bound_is_named) {
  const Datatype dt = Datatype::parse("struct([1,1],[0,8],[MPI_DOUBLE,MPI_INT])");
  Buffer expected(dt, 2, std::byte{0}), observed(dt, 2, std::byte{0});
  store<double>(expected.element(0), 1.0);
  store<double>(observed.element(0), 1.0 + 1e-12);
  store<std::int32_t>(expected.element(1) + 8, 5);
  store<std::int32_t>(observed.element(1) + 8, 5);
  const std::vector<std::vector<long double>> bound = {{1e-11L, 0}, {1e-11L, 0}};
  EXPECT_FALSE(first_outside_bound(bound, expected, observed));
  store<std::int32_t>(observed.element(1) + 8, 6);  // an int leaf: exact
  auto bad = first_outside_bound(bound, expected, observed);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->element, 1);
  EXPECT_EQ(bad->slot.leaf, 1u);
  EXPECT_EQ(bad->expected, 5);
  EXPECT_EQ(bad->observed, 6);
  store<std::int32_t>(observed.element(1) + 8, 5);
  store<double>(observed.element(0), 1.0 + 1e-10);  // beyond 1e-11
  bad = first_outside_bound(bound, expected, observed);
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->element, 0);
  EXPECT_EQ(bad->slot.leaf, 0u);
}

TEST(ErrorBound, the_judgement_as_it_goes_agrees_with_the_table_of_bounds) {
  // first_outside_error_bound() makes each bound as it compares; it names the
  // same value as first_outside_bound(error_bound(...)) for every routine, a
  // real and complex type, SUM and PROD, and a result moved by
  // less, then more, than its bound at each of its values in turn.
  struct Shape {
    Routine routine;
    const char* op;
    const char* datatype;
    Topology t;
    Role me;
  };
  const std::vector<Shape> shapes = {
      {Routine::allreduce, "MPI_SUM", "MPI_DOUBLE", intra(5), {0, 2}},
      {Routine::reduce, "MPI_PROD", "MPI_C_DOUBLE_COMPLEX", intra(3), {0, 0}},
      {Routine::scan, "MPI_SUM", "MPI_C_FLOAT_COMPLEX", intra(4), {0, 3}},
      {Routine::exscan, "MPI_SUM", "MPI_FLOAT", intra(4), {0, 2}},
      {Routine::reduce_scatter, "MPI_SUM", "MPI_DOUBLE", intra(4), {0, 1}},
      {Routine::reduce_scatter_block, "MPI_PROD", "MPI_FLOAT", intra(3), {0, 2}},
      {Routine::allreduce, "MPI_SUM", "MPI_DOUBLE", Topology{true, 2, 3}, {1, 1}},
      {Routine::reduce_local, "MPI_SUM", "MPI_LONG_DOUBLE", intra(1), {0, 0}},
      {Routine::allreduce, "MPI_MAX", "MPI_DOUBLE", intra(3), {0, 1}},
  };
  int judged = 0;
  for (const Shape& sh : shapes) {
    Case c = inexact(sh.routine, sh.datatype, 5);
    c.op = sh.op;
    SCOPED_TRACE(std::string(routine_name(c.routine)) + " " + c.op + " " + c.datatype);
    const RankPlan plan = ordo::ref::plan(c, sh.t, sh.me);
    ASSERT_TRUE(plan.recv_expected);
    const Buffer& expected = *plan.recv_expected;
    const auto table = error_bound(c, sh.t, sh.me, plan);
    EXPECT_FALSE(first_outside_error_bound(c, sh.t, sh.me, plan, expected, expected));
    const auto slots = value_slots(expected.type());
    for (std::size_t k = 0; k < table.size(); ++k)
      for (std::size_t s = 0; s < slots.size(); ++s) {
        if (slots[s].scalar != Scalar::f32 && slots[s].scalar != Scalar::f64 &&
            slots[s].scalar != Scalar::f80)
          continue;
        for (long double by : {table[k][s] / 2, table[k][s] * 2 + 1}) {
          Buffer observed = expected;
          std::byte* p = observed.element(static_cast<int>(k)) + slots[s].offset;
          if (slots[s].scalar == Scalar::f32)
            store<float>(p, static_cast<float>(load<float>(p) + by));
          else if (slots[s].scalar == Scalar::f64)
            store<double>(p, static_cast<double>(load<double>(p) + by));
          else
            store<long double>(p, load<long double>(p) + by);
          const auto want = first_outside_bound(table, expected, observed);
          const auto got = first_outside_error_bound(c, sh.t, sh.me, plan, expected, observed);
          ASSERT_EQ(static_cast<bool>(want), static_cast<bool>(got)) << k << " " << s;
          if (want) {
            EXPECT_EQ(got->element, want->element);
            EXPECT_EQ(got->slot.leaf, want->slot.leaf);
            EXPECT_EQ(got->slot.component, want->slot.component);
            EXPECT_EQ(got->bound, want->bound);
            EXPECT_EQ(got->observed, want->observed);
          }
          ++judged;
        }
      }
  }
  EXPECT_GT(judged, 100);
}
