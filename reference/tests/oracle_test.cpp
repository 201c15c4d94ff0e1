// The oracle: inputs are a pure function of (case, group, rank); plan()
// gives each rank the buffers it passes and the result it must get back,
// and the result is the rank-ordered fold of every rank's make_input().
#include "ordo/reference/oracle.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ordo/reference/basic_types.h"
#include "ordo/reference/errors.h"
#include "ordo/reference/semantics.h"
#include "ordo/reference/witness.h"
#include "test_util.h"

using namespace ordo::ref;
using RR = RankPlan::RootRole;

namespace {

Case make_case(Routine r, const std::string& op, const std::string& dt, int count) {
  Case c;
  c.routine = r;
  c.op = op;
  c.datatype = dt;
  c.count = count;
  c.seed = 42;
  return c;
}

// The fold of make_input over ranks [0, p) of `group`, written over `shape`
// (a receive buffer as the caller initialised it), as a rank must see it.
Buffer expected_fold(const Case& c, int group, int p, const Buffer& shape) {
  const Datatype dt = Datatype::parse(c.datatype);
  std::vector<Buffer> in;
  for (int r = 0; r < p; ++r) in.push_back(make_input(c, dt, c.count, group, r));
  std::vector<const Buffer*> ptrs;
  for (const Buffer& b : in) ptrs.push_back(&b);
  const Buffer f = fold(ptrs, op_for_case(c));
  Buffer out = shape;
  copy_elements(f, 0, out, 0, c.count);
  return out;
}

::testing::AssertionResult same_buffer(const Buffer& e, const Buffer& o) {
  const Difference d = first_difference(e, o);
  if (!d.any) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << (d.in_hole ? "hole byte " : "element ") << d.element << " leaf " << d.leaf
         << ": expected " << d.expected << ", observed " << d.observed;
}

}  // namespace

TEST(Oracle, reduce_plan_gives_the_root_the_fold_of_every_ranks_make_input) {
  const struct {
    const char* op;
    const char* dt;
  } cases[] = {{"MPI_SUM", "MPI_INT"},
               {"MPI_PROD", "MPI_DOUBLE"},
               {"MPI_MAXLOC", "MPI_DOUBLE_INT"},
               {"MPI_BXOR", "MPI_UNSIGNED_LONG"},
               {"witness.sum-declared-noncommutative", "vector(2,2,3,MPI_INT)"},
               {"witness.multiset", "vector(2,2,3,MPI_INT)"},
               {"MPI_LXOR", "MPI_C_BOOL"},
               {"MPI_PROD", "MPI_C_DOUBLE_COMPLEX"},
               {"witness.tracer", "contiguous(4,MPI_INT)"},
               {"witness.matrix", "vector(2,2,3,MPI_INT)"}};
  const int p = 4;
  for (const auto& k : cases) {
    for (int root = 0; root < p; ++root) {
      Case c = make_case(Routine::reduce, k.op, k.dt, 3);
      c.root = root;
      SCOPED_TRACE(c.describe());
      for (int r = 0; r < p; ++r) {
        const RankPlan pl = plan(c, {false, p, 0}, {0, r});
        ASSERT_TRUE(pl.send.has_value());
        EXPECT_EQ(pl.send_count, 3);
        if (r != root) {
          EXPECT_FALSE(pl.recv_significant);
          EXPECT_FALSE(pl.recv_expected.has_value());
          EXPECT_EQ(pl.root_role, RR::other_in_root_group);
          continue;
        }
        EXPECT_EQ(pl.root_role, RR::root);
        ASSERT_TRUE(pl.recv_expected.has_value());
        ASSERT_TRUE(pl.recv_initial.has_value());
        EXPECT_EQ(pl.recv_compare_elements, 3);
        EXPECT_TRUE(same_buffer(expected_fold(c, 0, p, *pl.recv_initial), *pl.recv_expected));
      }
    }
  }
}

TEST(Oracle, reduce_plan_with_the_tracer_expects_ranks_0_to_p_minus_1) {
  // Both tracers (MPI_Op_create and MPI_Op_create_c) take [rank..rank] cells
  // as inputs, so that their result names the order.
  for (const char* op : {"witness.tracer", "witness.tracer-c"}) {
    SCOPED_TRACE(op);
    EXPECT_TRUE(witness::is_tracer(op));
    Case c = make_case(Routine::reduce, op, "contiguous(4,MPI_INT)", 2);
    const RankPlan pl = plan(c, {false, 5, 0}, {0, 0});
    const auto cells = witness::read_cells(pl.recv_expected->element(1), pl.recv_expected->type());
    EXPECT_EQ(witness::explain_tracer(cells[0], 0, 4), "ranks 0..4 in order");
    const Datatype dt = Datatype::parse(c.datatype);
    const auto in = witness::read_cells(make_input(c, dt, 2, 0, 3).element(1), dt);
    EXPECT_EQ(in[0].v[0], 3);
    EXPECT_EQ(in[0].v[1], 3);
  }
  EXPECT_FALSE(witness::is_tracer("witness.matrix"));
}

TEST(Oracle, make_input_is_a_pure_function_of_case_group_and_rank) {
  const Case c = make_case(Routine::allreduce, "MPI_BXOR", "MPI_UINT64_T", 8);
  const Datatype dt = Datatype::parse(c.datatype);
  EXPECT_EQ(make_input(c, dt, 8, 0, 3).storage(), make_input(c, dt, 8, 0, 3).storage());
  EXPECT_NE(make_input(c, dt, 8, 0, 3).storage(), make_input(c, dt, 8, 0, 2).storage());
  EXPECT_NE(make_input(c, dt, 8, 0, 3).storage(), make_input(c, dt, 8, 1, 3).storage());
  Case d = c;
  d.seed = 43;
  EXPECT_NE(make_input(c, dt, 8, 0, 3).storage(), make_input(d, dt, 8, 0, 3).storage());
}

// The inputs are part of every case's identity: a reproducer, a kept
// expected-result digest and a waiver's example all name a case by its seed
// and rely on make_input giving the same bytes. This digest (FNV-1a over
// each buffer's storage, in the order below) was taken from the element-by-element
// generator of a0480f5, before the buffer-at-a-time fast path: a change of
// any input byte of any basic type, op, mode, seed, group, rank or offset
// fails it.
TEST(Oracle, make_input_gives_the_same_bytes_as_the_generator_it_replaced) {
  std::vector<std::string> types;
  for (int b = 0; b < kBasicCount; ++b) types.emplace_back(info(static_cast<Basic>(b)).mpi_name);
  for (const char* t :
       {"vector(2,1,3,MPI_INT)", "struct([1,1,1],[0,8,12],[MPI_DOUBLE,MPI_INT,MPI_FLOAT])",
        "resized(0,16,MPI_INT)", "contiguous(4,MPI_INT)",
        "struct([1,1],[0,8],[MPI_CHAR,MPI_DOUBLE])"})
    types.emplace_back(t);
  const char* ops[] = {"MPI_MAX",     "MPI_MIN",   "MPI_SUM",          "MPI_PROD",
                       "MPI_LAND",    "MPI_LOR",   "MPI_LXOR",         "MPI_BAND",
                       "MPI_BOR",     "MPI_BXOR",  "MPI_MAXLOC",       "MPI_MINLOC",
                       "MPI_REPLACE", "MPI_NO_OP", "witness.multiset", "witness.tracer"};
  std::uint64_t h = 1469598103934665603ULL;
  auto fnv = [&h](const std::byte* p, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      h ^= static_cast<unsigned>(p[i]);
      h *= 1099511628211ULL;
    }
  };
  int made = 0;
  for (const std::string& t : types) {
    const Datatype dt = Datatype::parse(t);
    for (const char* op : ops)
      for (int exact = 0; exact < 2; ++exact)
        for (std::uint64_t seed : {1ULL, 77ULL}) {
          Case c;
          c.op = op;
          c.exact = exact != 0;
          c.seed = seed;
          c.datatype = t;
          for (int r = 0; r < 3; ++r)
            for (int first : {0, 5}) {
              try {
                const Buffer b = make_input(c, dt, 37, r % 2, r, first);
                fnv(b.storage().data(), b.storage().size());
                h ^= 0x9e37;
                ++made;
              } catch (const std::exception& e) {  // a witness on a datatype it does not take
                fnv(reinterpret_cast<const std::byte*>(e.what()), 5);
              }
            }
        }
  }
  EXPECT_EQ(made, 21888);
  EXPECT_EQ(h, 0x77b08f696ab34598ULL);
}

TEST(Oracle, inputs_for_predefined_ops_give_the_same_exact_result_in_every_order) {
  // Predefined ops may be reordered by a library, so the oracle's inputs
  // must make every order agree exactly (DESIGN.md, "The one idea").
  const struct {
    const char* op;
    const char* dt;
  } cases[] = {{"MPI_SUM", "MPI_DOUBLE"},
               {"MPI_SUM", "MPI_FLOAT"},
               {"MPI_PROD", "MPI_DOUBLE"},
               {"MPI_PROD", "MPI_LONG_DOUBLE"},
               {"MPI_SUM", "MPI_C_FLOAT_COMPLEX"},
               {"MPI_PROD", "MPI_C_DOUBLE_COMPLEX"},
               {"MPI_PROD", "MPI_C_FLOAT_COMPLEX"},
               {"MPI_PROD", "MPI_C_LONG_DOUBLE_COMPLEX"},
               {"MPI_SUM", "MPI_INT8_T"},
               {"MPI_PROD", "MPI_SHORT"},
               {"MPI_MIN", "MPI_FLOAT"},
               {"MPI_LAND", "MPI_INT"},
               {"MPI_MINLOC", "MPI_2REAL"},
               {"MPI_SUM", "MPI_AINT"}};
  for (const auto& k : cases) {
    for (int p : {2, 7, 12}) {
      for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        Case c = make_case(Routine::allreduce, k.op, k.dt, 16);
        c.seed = seed;
        SCOPED_TRACE(c.describe() + " ranks=" + std::to_string(p));
        const Datatype dt = Datatype::parse(c.datatype);
        std::vector<Buffer> in;
        for (int r = 0; r < p; ++r) in.push_back(make_input(c, dt, c.count, 0, r));
        std::vector<const Buffer*> order;
        for (const Buffer& b : in) order.push_back(&b);
        const Buffer ref = fold(order, op_for_case(c));
        std::reverse(order.begin(), order.end());
        EXPECT_TRUE(same_buffer(ref, fold(order, op_for_case(c))));
        std::rotate(order.begin(), order.begin() + 3 % p, order.end());
        EXPECT_TRUE(same_buffer(ref, fold(order, op_for_case(c))));
      }
    }
  }
}

TEST(Oracle, allreduce_plan_expects_the_same_result_on_every_rank) {
  const Case c = make_case(Routine::allreduce, "witness.matrix", "contiguous(4,MPI_INT)", 2);
  const RankPlan p0 = plan(c, {false, 3, 0}, {0, 0});
  for (int r = 1; r < 3; ++r) {
    const RankPlan pr = plan(c, {false, 3, 0}, {0, r});
    EXPECT_TRUE(same_buffer(*p0.recv_expected, *pr.recv_expected));
  }
  EXPECT_TRUE(same_buffer(expected_fold(c, 0, 3, *p0.recv_initial), *p0.recv_expected));
}

TEST(Oracle, exscan_plan_marks_rank_0_undefined) {
  const Case c = make_case(Routine::exscan, "MPI_SUM", "MPI_INT", 2);
  EXPECT_FALSE(plan(c, {false, 3, 0}, {0, 0}).result_defined);
  EXPECT_TRUE(plan(c, {false, 3, 0}, {0, 2}).result_defined);
  // Rank 2 expects the fold of ranks 0 and 1.
  const RankPlan p2 = plan(c, {false, 3, 0}, {0, 2});
  EXPECT_TRUE(same_buffer(expected_fold(c, 0, 2, *p2.recv_initial), *p2.recv_expected));
}

TEST(Oracle, in_place_reduce_plan_takes_the_roots_input_from_recvbuf) {
  Case c = make_case(Routine::reduce, "MPI_SUM", "MPI_INT", 4);
  c.in_place = true;
  c.root = 1;
  const RankPlan root = plan(c, {false, 3, 0}, {0, 1});
  EXPECT_FALSE(root.send_significant);
  EXPECT_FALSE(root.send.has_value());
  const Datatype dt = Datatype::parse(c.datatype);
  EXPECT_EQ(root.recv_initial->storage(), make_input(c, dt, 4, 0, 1).storage());
  EXPECT_TRUE(same_buffer(expected_fold(c, 0, 3, *root.recv_initial), *root.recv_expected));
  const RankPlan other = plan(c, {false, 3, 0}, {0, 0});
  EXPECT_TRUE(other.send_significant);
}

TEST(Oracle, reduce_scatter_plan_gives_each_rank_its_block) {
  Case c = make_case(Routine::reduce_scatter, "MPI_SUM", "MPI_LONG", 0);
  c.recvcounts = {2, 0, 3};
  const Datatype dt = Datatype::parse(c.datatype);
  std::vector<Buffer> in;
  for (int r = 0; r < 3; ++r) in.push_back(make_input(c, dt, 5, 0, r));
  const Buffer f = fold({&in[0], &in[1], &in[2]}, op_for_case(c));
  const auto all = test::leaves_of<long>(f);
  const RankPlan p2 = plan(c, {false, 3, 0}, {0, 2});
  EXPECT_EQ(p2.send_count, 5);
  EXPECT_EQ(p2.recv_compare_elements, 3);
  EXPECT_EQ(test::leaves_of<long>(*p2.recv_expected),
            (std::vector<long>(all.begin() + 2, all.end())));
  EXPECT_EQ(plan(c, {false, 3, 0}, {0, 1}).recv_compare_elements, 0);
}

TEST(Oracle, intercomm_reduce_plan_gives_the_root_the_other_groups_fold) {
  Case c = make_case(Routine::reduce, "witness.tracer", "contiguous(4,MPI_INT)", 1);
  c.root = 1;
  c.root_in_high_group = false;  // root is rank 1 of the low group
  const Topology t{true, 2, 3};
  const RankPlan root = plan(c, t, {0, 1});
  EXPECT_EQ(root.root_role, RR::root);
  EXPECT_FALSE(root.send_significant);
  EXPECT_TRUE(same_buffer(expected_fold(c, 1, 3, *root.recv_initial), *root.recv_expected));
  const auto cells = witness::read_cells(root.recv_expected->data(), root.recv_expected->type());
  EXPECT_EQ(witness::explain_tracer(cells[0], 0, 2), "ranks 0..2 in order");
  EXPECT_EQ(plan(c, t, {0, 0}).root_role, RR::other_in_root_group);
  const RankPlan sender = plan(c, t, {1, 2});
  EXPECT_EQ(sender.root_role, RR::in_other_group);
  EXPECT_TRUE(sender.send.has_value());
  EXPECT_FALSE(sender.recv_significant);
}

TEST(Oracle, intercomm_allreduce_plan_gives_each_group_the_other_groups_fold) {
  const Case c = make_case(Routine::allreduce, "witness.matrix", "contiguous(4,MPI_INT)", 1);
  const Topology t{true, 1, 3};
  const RankPlan a = plan(c, t, {0, 0});
  EXPECT_TRUE(same_buffer(expected_fold(c, 1, 3, *a.recv_initial), *a.recv_expected));
  const RankPlan b = plan(c, t, {1, 2});
  EXPECT_TRUE(same_buffer(expected_fold(c, 0, 1, *b.recv_initial), *b.recv_expected));
}

TEST(Oracle, reduce_locals_plans_follow_the_proposals_five_forms) {
  Case c = make_case(Routine::reduce_locals, "witness.matrix", "contiguous(4,MPI_INT)", 1);
  const Datatype dt = Datatype::parse(c.datatype);
  const Op op = op_for_case(c);
  const Buffer X = make_input(c, dt, 1, 0, 0), A = make_input(c, dt, 1, 0, 1),
               Y = make_input(c, dt, 1, 0, 2);
  auto expect_form = [&](bool in_ip, bool arg_ip, bool arg_is_in, const Buffer& x,
                         const Buffer& y) {
    c.locals_in_is_in_place = in_ip;
    c.locals_arg_is_in_place = arg_ip;
    c.locals_arg_is_in = arg_is_in;
    const RankPlan pl = plan(c, {false, 1, 0}, {0, 0});
    Buffer e = A;
    copy_elements(fold({&x, &y}, op), 0, e, 0, 1);
    EXPECT_TRUE(same_buffer(e, *pl.recv_expected)) << in_ip << arg_ip << arg_is_in;
  };
  expect_form(false, false, false, X, Y);  // A = X op Y
  expect_form(true, false, false, A, Y);   // A = A op Y
  expect_form(false, true, false, X, A);   // A = X op A
  expect_form(false, false, true, X, X);   // A = X op X
  expect_form(true, true, false, A, A);    // A = A op A
}

// witness.multiset: the result of a wrong reduction names the contribution
// that explains it. The "wrong" results here are built by hand from the
// inputs: one rank dropped, one doubled, one element misplaced.
TEST(Oracle, a_multiset_result_names_a_dropped_doubled_or_misplaced_contribution) {
  Case c = make_case(Routine::reduce_scatter, "witness.multiset", "contiguous(4,MPI_INT)", 3);
  c.recvcounts = {2, 2, 2};
  const Topology t{false, 3, 0};
  const Role me{0, 1};
  const RankPlan pl = plan(c, t, me);
  ASSERT_TRUE(pl.recv_expected.has_value());
  const Datatype dt = Datatype::parse(c.datatype);
  ASSERT_EQ(send_element_of(c, t, me, 1), 3);  // rank 1's second element is send element 3
  const auto contributions = multiset_contributions(c, t, me);
  ASSERT_EQ(contributions.size(), 3u);
  const witness::Cell want = witness::read_cells(pl.recv_expected->element(1), dt)[0];
  const witness::Cell r2 = contributions[2].elements[3][0];
  const witness::Cell r2_other = contributions[2].elements[0][0];
  auto sum = [](witness::Cell a, const witness::Cell& b, int sign) {
    for (int i = 0; i < 4; ++i)
      a.v[i] = static_cast<std::int32_t>(static_cast<std::uint32_t>(a.v[i]) +
                                         static_cast<std::uint32_t>(sign) *
                                             static_cast<std::uint32_t>(b.v[i]));
    return a;
  };
  EXPECT_EQ(witness::explain_multiset(sum(want, r2, -1), want, 3, 0, contributions),
            "the contribution of rank 2 is missing");
  EXPECT_EQ(witness::explain_multiset(sum(want, r2, 1), want, 3, 0, contributions),
            "the contribution of rank 2 is counted twice");
  EXPECT_EQ(
      witness::explain_multiset(sum(sum(want, r2, -1), r2_other, 1), want, 3, 0, contributions),
      "rank 2's element 0 was combined in place of its element 3");
  EXPECT_EQ(witness::explain_multiset(want, want, 3, 0, contributions), "");
  // Exscan at rank 1: rank 0 alone belongs in the result; rank 1's own input does not.
  Case e = make_case(Routine::exscan, "witness.multiset", "contiguous(4,MPI_INT)", 2);
  const auto ex = multiset_contributions(e, t, me);
  EXPECT_TRUE(ex[0].expected);
  EXPECT_FALSE(ex[1].expected);
  const RankPlan epl = plan(e, t, me);
  const witness::Cell ewant = witness::read_cells(epl.recv_expected->element(0), dt)[0];
  EXPECT_EQ(witness::explain_multiset(sum(ewant, ex[1].elements[0][0], 1), ewant, 0, 0, ex),
            "the contribution of rank 1 is counted although it must not be");
}

TEST(Oracle, the_multiset_witness_is_commutative_and_its_result_is_the_same_in_every_order) {
  Case c = make_case(Routine::allreduce, "witness.multiset", "contiguous(4,MPI_INT)", 5);
  EXPECT_TRUE(op_for_case(c).commutative());
  const Datatype dt = Datatype::parse(c.datatype);
  std::vector<Buffer> in;
  for (int r = 0; r < 4; ++r) in.push_back(make_input(c, dt, c.count, 0, r));
  std::vector<const Buffer*> order = {&in[0], &in[1], &in[2], &in[3]};
  const Buffer a = fold(order, op_for_case(c));
  std::reverse(order.begin(), order.end());
  const Buffer b = fold(order, op_for_case(c));
  EXPECT_EQ(a.storage(), b.storage());
}

TEST(Oracle, validate_case_refuses_erroneous_and_malformed_cases) {
  const Topology intra{false, 4, 0}, inter{true, 2, 2};
  auto clause = [](const Case& c, const Topology& t) {
    return test::clause_of([&] { validate_case(c, t); });
  };
  EXPECT_EQ(clause(make_case(Routine::reduce, "MPI_SUM", "MPI_CHAR", 1), intra),
            "op.char-types-excluded");
  EXPECT_EQ(clause(make_case(Routine::reduce, "MPI_LAND", "MPI_DOUBLE", 1), intra),
            "op.type-groups");
  EXPECT_EQ(
      clause(make_case(Routine::reduce, "witness.tracer", "contiguous(4,MPI_DOUBLE)", 1), intra),
      "user-op.witness-datatype");
  Case local = make_case(Routine::reduce_local, "MPI_SUM", "MPI_INT", 1);
  local.in_place = true;
  EXPECT_EQ(clause(local, intra), "reduce-local.no-in-place");
  Case locals = make_case(Routine::reduce_locals, "MPI_SUM", "MPI_INT", 1);
  locals.in_place = true;
  EXPECT_EQ(clause(locals, intra), "reduce-locals.inout-not-in-place");
  EXPECT_EQ(clause(make_case(Routine::scan, "MPI_SUM", "MPI_INT", 1), inter),
            "scan.intracomm-only");
  EXPECT_EQ(clause(make_case(Routine::exscan, "MPI_SUM", "MPI_INT", 1), inter),
            "scan.intracomm-only");
  Case ip = make_case(Routine::allreduce, "MPI_SUM", "MPI_INT", 1);
  ip.in_place = true;
  EXPECT_EQ(clause(ip, inter), "collective.in-place-intracomm-only");

  Case root = make_case(Routine::reduce, "MPI_SUM", "MPI_INT", 1);
  root.root = 4;
  EXPECT_THROW(validate_case(root, intra), UsageError);
  EXPECT_THROW(validate_case(make_case(Routine::reduce, "MPI_AVG", "MPI_INT", 1), intra),
               UsageError);
  EXPECT_THROW(validate_case(make_case(Routine::reduce, "MPI_SUM", "vector(1,MPI_INT)", 1), intra),
               UsageError);
  Case rs = make_case(Routine::reduce_scatter, "MPI_SUM", "MPI_INT", 1);
  rs.recvcounts = {1, 1, 1};
  EXPECT_THROW(validate_case(rs, intra), UsageError);
  rs.recvcounts = {1, 1, 2, 0};  // inter: low {1, 1}, high {2, 0}: equal sums
  EXPECT_NO_THROW(validate_case(rs, inter));
  rs.recvcounts = {1, 2, 0, 0};
  EXPECT_THROW(validate_case(rs, inter), UsageError);  // 3 vs 0 elements
  EXPECT_NO_THROW(validate_case(make_case(Routine::reduce, "MPI_SUM", "MPI_INT", 1), intra));
}

TEST(Oracle, refuses_a_predefined_op_on_a_derived_datatype) {
  Case c = make_case(Routine::allreduce, "MPI_SUM", "contiguous(2,MPI_INT)", 1);
  try {
    validate_case(c, {false, 2, 0});
    FAIL() << "a predefined op on a derived datatype was accepted";
  } catch (const ordo::ref::SemanticsError& e) {
    EXPECT_EQ(e.clause(), "op.predefined-on-predefined-types");
  }
}
