// The proposed MPI_Reduce_locals(inbuf, argbuf, inoutbuf): the five example
// assignments of the proposal (the project's seeds, proposal-mpi-reduce-locals.txt)
// with a non-commutative op, so that the orientation X op Y is checked, and
// its refusals. A = inoutbuf, X = inbuf, Y = argbuf; nullptr is MPI_IN_PLACE.
#include <gtest/gtest.h>

#include <vector>

#include "ordo/reference/semantics.h"
#include "test_util.h"

using namespace ordo::ref;
using test::concat_op;
using test::leaves_of;
using test::ll;

namespace {

using V = std::vector<long long>;
constexpr std::byte kFill{0xEE};

Buffer buf(const V& v) {
  return test::leaves_buffer<long long>(ll(), static_cast<int>(v.size()), v);
}

}  // namespace

TEST(ReduceLocals, a_equals_x_op_y) {
  const Buffer X = buf({12, 5}), Y = buf({34, 6});
  Buffer A = buf({99, 99});
  reduce_locals(&X, &Y, &A, concat_op());
  EXPECT_EQ(leaves_of<long long>(A), (V{1234, 56}));
  EXPECT_EQ(leaves_of<long long>(X), (V{12, 5}));
  EXPECT_EQ(leaves_of<long long>(Y), (V{34, 6}));
}

TEST(ReduceLocals, a_equals_a_op_y_when_inbuf_is_in_place) {
  const Buffer Y = buf({34, 6});
  Buffer A = buf({12, 5});
  reduce_locals(nullptr, &Y, &A, concat_op());
  EXPECT_EQ(leaves_of<long long>(A), (V{1234, 56}));
}

TEST(ReduceLocals, a_equals_x_op_a_when_argbuf_is_in_place) {
  const Buffer X = buf({12, 5});
  Buffer A = buf({34, 6});
  reduce_locals(&X, nullptr, &A, concat_op());
  EXPECT_EQ(leaves_of<long long>(A), (V{1234, 56}));
}

TEST(ReduceLocals, a_equals_x_op_x_when_argbuf_is_inbuf) {
  const Buffer X = buf({12, 5});
  Buffer A = buf({99, 99});
  reduce_locals(&X, &X, &A, concat_op());
  EXPECT_EQ(leaves_of<long long>(A), (V{1212, 55}));
  EXPECT_EQ(leaves_of<long long>(X), (V{12, 5}));
}

TEST(ReduceLocals, a_equals_a_op_a_when_both_inputs_are_in_place) {
  Buffer A = buf({12, 5});
  reduce_locals(nullptr, nullptr, &A, concat_op());
  EXPECT_EQ(leaves_of<long long>(A), (V{1212, 55}));
}

TEST(ReduceLocals, with_argbuf_in_place_is_reduce_local) {
  const Buffer X = buf({12, 5});
  Buffer A1 = buf({34, 6}), A2 = buf({34, 6});
  reduce_locals(&X, nullptr, &A1, concat_op());
  reduce_local(X, A2, concat_op());
  EXPECT_EQ(A1.storage(), A2.storage());
}

TEST(ReduceLocals, refuses_mpi_in_place_as_inoutbuf) {
  const Buffer X = buf({1}), Y = buf({2});
  Buffer A = buf({3});
  EXPECT_EQ(test::clause_of([&] { reduce_locals(&X, &Y, &A, concat_op(), true); }),
            "reduce-locals.inout-not-in-place");
  EXPECT_EQ(test::clause_of([&] { reduce_locals(&X, &Y, nullptr, concat_op()); }),
            "reduce-locals.inout-not-in-place");
  EXPECT_EQ(leaves_of<long long>(A), (V{3}));
}

TEST(ReduceLocals, refuses_inbuf_or_argbuf_being_the_same_buffer_as_inoutbuf) {
  const Buffer Y = buf({2});
  Buffer A = buf({3});
  EXPECT_EQ(test::clause_of([&] { reduce_locals(&A, &Y, &A, concat_op()); }),
            "reduce-locals.distinct-from-inout");
  EXPECT_EQ(test::clause_of([&] { reduce_locals(&Y, &A, &A, concat_op()); }),
            "reduce-locals.distinct-from-inout");
  EXPECT_EQ(test::clause_of([&] { reduce_locals(&A, &A, &A, concat_op()); }),
            "reduce-locals.distinct-from-inout");
  EXPECT_EQ(leaves_of<long long>(A), (V{3}));
}

TEST(ReduceLocals, writes_only_the_data_of_a_receive_datatype_with_holes) {
  const Datatype dt = Datatype::vector(2, 1, 3, ll());
  const Buffer X = test::leaves_buffer<long long>(dt, 2, {1, 2, 3, 4});
  const Buffer Y = test::leaves_buffer<long long>(dt, 2, {5, 6, 7, 8});
  Buffer A = test::leaves_buffer<long long>(dt, 2, {0, 0, 0, 0}, kFill);
  reduce_locals(&X, &Y, &A, concat_op());
  EXPECT_EQ(leaves_of<long long>(A), (V{15, 26, 37, 48}));
  EXPECT_TRUE(test::holes_hold(A, kFill));
}

TEST(ReduceLocals, works_with_a_predefined_op) {
  const Buffer X = test::array_buffer<int>(Basic::INT, {1, -2});
  const Buffer Y = test::array_buffer<int>(Basic::INT, {10, 20});
  Buffer A = test::array_buffer<int>(Basic::INT, {0, 0});
  reduce_locals(&X, &Y, &A, Op::predefined(PredefinedOp::SUM));
  EXPECT_EQ(leaves_of<int>(A), (std::vector<int>{11, 18}));
  reduce_locals(nullptr, nullptr, &A, Op::predefined(PredefinedOp::PROD));
  EXPECT_EQ(leaves_of<int>(A), (std::vector<int>{121, 324}));
}
