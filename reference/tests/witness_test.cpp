// The witness user ops (witness.h): the tracer records the order of the
// combines and names the first wrong one; the matrix op is associative and
// not commutative; both work over any datatype of whole 4-integer cells.
#include "ordo/reference/witness.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ordo/reference/errors.h"
#include "ordo/reference/semantics.h"
#include "test_util.h"

using namespace ordo::ref;
namespace w = ordo::ref::witness;

namespace {

const Datatype& cell_type() {
  static const Datatype t = Datatype::contiguous(4, Datatype::basic(Basic::INT));
  return t;
}

// A buffer of `count` elements of dt whose every cell is `c`.
Buffer cells_buffer(const Datatype& dt, int count, const w::Cell& c,
                    std::byte fill = std::byte{0xEE}) {
  Buffer b(dt, count, fill);
  for (int k = 0; k < count; ++k) {
    std::vector<w::Cell> cells = w::read_cells(b.element(k), dt);
    for (w::Cell& x : cells) x = c;
    w::write_cells(b.element(k), dt, cells);
  }
  return b;
}

w::Cell rank_cell(int r) { return {{r, r, w::kNoFault, w::kNoFault}}; }

w::Cell cell_of(const Buffer& b, int k = 0, int j = 0) {
  return w::read_cells(b.element(k), b.type())[static_cast<std::size_t>(j)];
}

bool same(const w::Cell& a, const w::Cell& b) {
  return a.v[0] == b.v[0] && a.v[1] == b.v[1] && a.v[2] == b.v[2] && a.v[3] == b.v[3];
}

// inout := in o inout with one cell each.
w::Cell apply(void (*f)(const std::byte*, std::byte*, int, const Datatype&), const w::Cell& in,
              const w::Cell& inout) {
  w::Cell out = inout;
  f(reinterpret_cast<const std::byte*>(&in), reinterpret_cast<std::byte*>(&out), 1, cell_type());
  return out;
}

std::vector<Buffer> tracer_inputs(const Datatype& dt, int p, int count) {
  std::vector<Buffer> v;
  for (int r = 0; r < p; ++r) v.push_back(cells_buffer(dt, count, rank_cell(r)));
  return v;
}

}  // namespace

TEST(Witness, tracer_gives_the_interval_0_to_p_minus_1_for_an_in_order_fold) {
  const Op op = w::make("witness.tracer");
  for (int p = 1; p <= 8; ++p) {
    const auto in = tracer_inputs(cell_type(), p, 2);
    std::vector<const Buffer*> ptrs;
    for (const Buffer& b : in) ptrs.push_back(&b);
    const Buffer r = fold(ptrs, op);
    for (int k = 0; k < 2; ++k) {
      const w::Cell c = cell_of(r, k);
      EXPECT_TRUE(same(c, {{0, p - 1, w::kNoFault, w::kNoFault}})) << "p = " << p;
    }
  }
  EXPECT_EQ(w::explain_tracer({{0, 3, -1, -1}}, 0, 3), "ranks 0..3 in order");
  EXPECT_EQ(w::explain_tracer({{0, 0, -1, -1}}, 0, 0), "rank 0 in order");
}

TEST(Witness, tracer_is_poisoned_by_a_swapped_combine_and_names_it) {
  const w::Cell c = apply(w::tracer, {{2, 3, -1, -1}}, {{0, 1, -1, -1}});
  EXPECT_EQ(c.v[0], w::kPoisoned);
  EXPECT_EQ(c.v[1], w::kPoisoned);
  EXPECT_EQ(w::explain_tracer(c, 0, 3),
            "first wrong combine: invec = ranks 2..3, inoutvec = ranks 0..1 (operands swapped)");
}

TEST(Witness, tracer_keeps_the_first_wrong_combine_of_a_reversed_fold) {
  // A library that folds in descending rank order: x3 o x2 o x1 o x0.
  const auto in = tracer_inputs(cell_type(), 4, 1);
  const Buffer r = fold({&in[3], &in[2], &in[1], &in[0]}, w::make("witness.tracer"));
  EXPECT_EQ(w::explain_tracer(cell_of(r), 0, 3),
            "first wrong combine: invec = rank 3, inoutvec = rank 2 (operands swapped)");
}

TEST(Witness, tracer_names_a_gap_and_an_overlap_between_operands) {
  EXPECT_EQ(w::explain_tracer(apply(w::tracer, {{0, 0, -1, -1}}, {{2, 3, -1, -1}}), 0, 3),
            "first wrong combine: invec = rank 0, inoutvec = ranks 2..3 (a gap between the "
            "operands)");
  EXPECT_EQ(w::explain_tracer(apply(w::tracer, {{0, 2, -1, -1}}, {{1, 3, -1, -1}}), 0, 3),
            "first wrong combine: invec = ranks 0..2, inoutvec = ranks 1..3 (overlapping "
            "operands)");
  // The same rank twice is an overlap too.
  EXPECT_EQ(w::explain_tracer(apply(w::tracer, {{1, 1, -1, -1}}, {{1, 1, -1, -1}}), 0, 3),
            "first wrong combine: invec = rank 1, inoutvec = rank 1 (overlapping operands)");
}

TEST(Witness, tracer_poison_survives_later_combines_from_either_side) {
  const w::Cell bad = apply(w::tracer, {{1, 1, -1, -1}}, {{0, 0, -1, -1}});
  EXPECT_TRUE(same(apply(w::tracer, bad, {{2, 2, -1, -1}}), bad));
  EXPECT_TRUE(same(apply(w::tracer, {{0, 0, -1, -1}}, bad), bad));
}

TEST(Witness, tracer_reports_an_incomplete_interval) {
  EXPECT_EQ(w::explain_tracer({{0, 2, -1, -1}}, 0, 3), "covers ranks 0..2 instead of ranks 0..3");
}

TEST(Witness, tracer_works_over_a_datatype_with_holes) {
  const Datatype dt = Datatype::vector(2, 2, 3, Datatype::basic(Basic::INT));
  ASSERT_EQ(dt.typemap().size(), 4u);  // one cell per element, with a hole of 4 bytes
  EXPECT_NO_THROW(w::check_datatype(dt));
  const Op op = w::make("witness.tracer");
  const int p = 5, count = 3;
  const auto send = tracer_inputs(dt, p, count);
  for (int root = 0; root < p; ++root) {
    auto recv = test::recv_buffers(dt, p, count);
    reduce(send, op, root, recv);
    EXPECT_TRUE(test::holes_hold(recv[root], std::byte{0xEE}));
    for (int k = 0; k < count; ++k)
      EXPECT_TRUE(same(cell_of(recv[root], k), {{0, p - 1, -1, -1}})) << "root " << root;
  }
  auto recv = test::recv_buffers(dt, p, count);
  scan(send, op, recv);
  for (int r = 0; r < p; ++r) EXPECT_TRUE(same(cell_of(recv[r], 2), {{0, r, -1, -1}}));
  recv = test::recv_buffers(dt, p, count);
  exscan(send, op, recv);
  for (int r = 1; r < p; ++r) EXPECT_TRUE(same(cell_of(recv[r], 1), {{0, r - 1, -1, -1}}));
}

TEST(Witness, tracer_traces_every_cell_of_a_multi_cell_element_independently) {
  const Datatype dt = Datatype::contiguous(8, Datatype::basic(Basic::UNSIGNED));  // two cells
  const auto in = tracer_inputs(dt, 3, 1);
  const Buffer r = fold({&in[0], &in[1], &in[2]}, w::make("witness.tracer"));
  EXPECT_TRUE(same(cell_of(r, 0, 0), {{0, 2, -1, -1}}));
  EXPECT_TRUE(same(cell_of(r, 0, 1), {{0, 2, -1, -1}}));
}

TEST(Witness, matrix_op_is_the_product_invec_times_inoutvec_modulo_2_to_the_32) {
  const w::Cell a{{1, 1, 0, 1}}, b{{1, 0, 1, 1}};             // [1 1; 0 1], [1 0; 1 1]
  EXPECT_TRUE(same(apply(w::matrix, a, b), {{2, 1, 1, 1}}));  // a*b
  EXPECT_TRUE(same(apply(w::matrix, b, a), {{1, 1, 1, 2}}));  // b*a
  // [2^31 0; 0 1] x [2 0; 0 1] = [2^32 0; 0 1] = [0 0; 0 1] (mod 2^32)
  const w::Cell big{{INT32_MIN, 0, 0, 1}}, two{{2, 0, 0, 1}};
  EXPECT_TRUE(same(apply(w::matrix, big, two), {{0, 0, 0, 1}}));
}

TEST(Witness, matrix_op_is_associative_on_random_cells) {
  std::mt19937 gen(20240611);
  std::uniform_int_distribution<std::int32_t> any(INT32_MIN, INT32_MAX);
  for (int t = 0; t < 2000; ++t) {
    w::Cell a, b, c;
    for (int i = 0; i < 4; ++i) {
      a.v[i] = any(gen);
      b.v[i] = any(gen);
      c.v[i] = any(gen);
    }
    const w::Cell ab_c = apply(w::matrix, apply(w::matrix, a, b), c);
    const w::Cell a_bc = apply(w::matrix, a, apply(w::matrix, b, c));
    ASSERT_TRUE(same(ab_c, a_bc)) << "trial " << t;
  }
}

TEST(Witness, matrix_op_is_not_commutative_on_random_cells) {
  std::mt19937 gen(7);
  std::uniform_int_distribution<std::int32_t> any(INT32_MIN, INT32_MAX);
  int differ = 0;
  for (int t = 0; t < 100; ++t) {
    w::Cell a, b;
    for (int i = 0; i < 4; ++i) {
      a.v[i] = any(gen);
      b.v[i] = any(gen);
    }
    differ += !same(apply(w::matrix, a, b), apply(w::matrix, b, a));
  }
  EXPECT_GT(differ, 95);
}

TEST(Witness, matrix_fold_equals_the_product_in_rank_order) {
  // Ranks 0, 1, 2 hold A = [1 1; 0 1], B = [1 0; 1 1], C = [2 0; 0 1].
  // A*B*C = [2 1; 1 1] * C = [4 1; 2 1]; the reverse order C*B*A = [2 2; 1 2].
  const Datatype dt = cell_type();
  const std::vector<Buffer> in = {cells_buffer(dt, 1, {{1, 1, 0, 1}}),
                                  cells_buffer(dt, 1, {{1, 0, 1, 1}}),
                                  cells_buffer(dt, 1, {{2, 0, 0, 1}})};
  const Op op = w::make("witness.matrix");
  EXPECT_TRUE(same(cell_of(fold({&in[0], &in[1], &in[2]}, op)), {{4, 1, 2, 1}}));
  EXPECT_TRUE(same(cell_of(fold({&in[2], &in[1], &in[0]}, op)), {{2, 2, 1, 2}}));
}

TEST(Witness, check_datatype_refuses_a_datatype_of_doubles) {
  EXPECT_EQ(test::clause_of(
                [] { w::check_datatype(Datatype::contiguous(4, Datatype::basic(Basic::DOUBLE))); }),
            "user-op.witness-datatype");
}

TEST(Witness, check_datatype_needs_whole_cells_of_4_byte_integers) {
  auto refused = [](const Datatype& t) {
    return test::clause_of([&] { w::check_datatype(t); }) == "user-op.witness-datatype";
  };
  EXPECT_TRUE(refused(Datatype::contiguous(3, Datatype::basic(Basic::INT))));
  EXPECT_TRUE(refused(Datatype::contiguous(0, Datatype::basic(Basic::INT))));
  EXPECT_TRUE(refused(Datatype::contiguous(4, Datatype::basic(Basic::FLOAT))));
  EXPECT_TRUE(refused(Datatype::contiguous(4, Datatype::basic(Basic::LONG_LONG))));
  EXPECT_TRUE(refused(Datatype::contiguous(4, Datatype::basic(Basic::SHORT))));
  EXPECT_TRUE(refused(Datatype::contiguous(4, Datatype::basic(Basic::TWO_INT))));
  for (Basic b : {Basic::INT, Basic::INT32_T, Basic::UNSIGNED, Basic::UINT32_T, Basic::INTEGER})
    EXPECT_FALSE(refused(Datatype::contiguous(4, Datatype::basic(b)))) << info(b).mpi_name;
  EXPECT_FALSE(
      refused(Datatype::resized(-16, 64, Datatype::vector(2, 2, 5, Datatype::basic(Basic::INT)))));
}

TEST(Witness, read_and_write_cells_touch_only_the_typemap) {
  const Datatype dt = Datatype::struct_({2, 2}, {0, 20},
                                        {Datatype::basic(Basic::INT), Datatype::basic(Basic::INT)});
  Buffer b(dt, 2, std::byte{0x3C});
  w::write_cells(b.element(1), dt, {{{7, 8, 9, 10}}});
  EXPECT_TRUE(same(cell_of(b, 1), {{7, 8, 9, 10}}));
  EXPECT_TRUE(test::holes_hold(b, std::byte{0x3C}));
}

TEST(Witness, sum_declared_noncommutative_wraps_and_is_registered_as_noncommutative) {
  const Op op = w::make("witness.sum-declared-noncommutative");
  EXPECT_FALSE(op.commutative());
  EXPECT_TRUE(
      same(apply(w::sum_i32, {{INT32_MAX, 1, -5, 0}}, {{1, 2, 5, 0}}), {{INT32_MIN, 3, 0, 0}}));
}

TEST(Witness, names_are_recognised_and_unknown_names_are_usage_errors) {
  for (const char* n : {"witness.tracer", "witness.matrix", "witness.sum-declared-noncommutative",
                        "witness.recorder"}) {
    EXPECT_TRUE(w::is_witness(n));
    EXPECT_EQ(w::make(n).name(), n);
    EXPECT_FALSE(w::make(n).commutative());
    EXPECT_FALSE(w::make(n).is_predefined());
  }
  EXPECT_FALSE(w::is_witness("MPI_SUM"));
  EXPECT_THROW(w::make("witness.nope"), UsageError);
}

TEST(Witness, tracer_trace_gives_the_explanation_as_data) {
  const w::Trace swapped = w::trace(apply(w::tracer, {{2, 3, -1, -1}}, {{0, 1, -1, -1}}), 0, 3);
  EXPECT_EQ(swapped.kind, w::Trace::Kind::swapped);
  EXPECT_STREQ(w::trace_kind_name(swapped.kind), "swapped");
  EXPECT_EQ(swapped.invec[0], 2);
  EXPECT_EQ(swapped.invec[1], 3);
  EXPECT_EQ(swapped.inoutvec[0], 0);
  EXPECT_EQ(swapped.inoutvec[1], 1);
  const w::Trace short_cover = w::trace({{0, 2, -1, -1}}, 0, 3);
  EXPECT_EQ(short_cover.kind, w::Trace::Kind::wrong_cover);
  EXPECT_EQ(short_cover.covers[1], 2);
  EXPECT_EQ(short_cover.expected[1], 3);
  EXPECT_EQ(w::explain(short_cover), "covers ranks 0..2 instead of ranks 0..3");
}
