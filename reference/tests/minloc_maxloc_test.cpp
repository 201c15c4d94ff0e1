// MINLOC and MAXLOC (MPI-4.1 Section 6.9.4) on every pair type: the winning
// value with its index, ties to the smaller index whichever operand holds it,
// and pair padding bytes never written.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "ordo/reference/op.h"
#include "ordo/reference/semantics.h"
#include "test_util.h"

using namespace ordo::ref;
using namespace ordo::ref::test::pairs;
using P = PredefinedOp;

namespace {

// The C layouts of Section 6.9.4, written out independently of the reference.

template <class Pair>
struct Pairs {
  // Pairs in a buffer of `count` elements of the pair type, padding kept.
  static void put(Buffer& b, int k, decltype(Pair::v) v, decltype(Pair::i) i) {
    std::memcpy(b.element(k) + offsetof(Pair, v), &v, sizeof v);
    std::memcpy(b.element(k) + offsetof(Pair, i), &i, sizeof i);
  }
  static decltype(Pair::v) value(const Buffer& b, int k) {
    decltype(Pair::v) v;
    std::memcpy(&v, b.element(k) + offsetof(Pair, v), sizeof v);
    return v;
  }
  static decltype(Pair::i) index(const Buffer& b, int k) {
    decltype(Pair::i) i;
    std::memcpy(&i, b.element(k) + offsetof(Pair, i), sizeof i);
    return i;
  }
};

template <class Pair>
void ties_go_to_the_smaller_index(Basic b) {
  using V = decltype(Pair::v);
  using I = decltype(Pair::i);
  using X = Pairs<Pair>;
  const Datatype dt = Datatype::basic(b);
  SCOPED_TRACE(std::string(info(b).mpi_name));
  for (P op : {P::MAXLOC, P::MINLOC}) {
    SCOPED_TRACE(std::string(op_name(op)));
    // Element 0: smaller index on the left; element 1: on the right.
    Buffer l(dt, 2), r(dt, 2);
    X::put(l, 0, V(3), I(2));
    X::put(r, 0, V(3), I(9));
    X::put(l, 1, V(3), I(9));
    X::put(r, 1, V(3), I(2));
    const Buffer f = fold({&l, &r}, Op::predefined(op));
    EXPECT_EQ(X::value(f, 0), V(3));
    EXPECT_EQ(X::index(f, 0), I(2));
    EXPECT_EQ(X::value(f, 1), V(3));
    EXPECT_EQ(X::index(f, 1), I(2));
    // The same, straight through apply_predefined with the output on the right.
    Buffer inout = r;
    apply_predefined(op, b, l.data(), inout.data(), inout.data(), 2);
    EXPECT_EQ(X::index(inout, 0), I(2));
    EXPECT_EQ(X::index(inout, 1), I(2));
  }
}

template <class Pair>
void the_winning_value_keeps_its_own_index(Basic b) {
  using V = decltype(Pair::v);
  using I = decltype(Pair::i);
  using X = Pairs<Pair>;
  const Datatype dt = Datatype::basic(b);
  SCOPED_TRACE(std::string(info(b).mpi_name));
  // Five ranks; the index never follows the rank, and the extreme value is
  // held by two ranks (1 and 3), the later one with the smaller index.
  const V vals[5] = {V(4), V(-6), V(9), V(-6), V(9)};
  const I idx[5] = {I(40), I(11), I(25), I(7), I(30)};
  std::vector<Buffer> in;
  for (int r = 0; r < 5; ++r) {
    in.emplace_back(dt, 1);
    X::put(in.back(), 0, vals[r], idx[r]);
  }
  std::vector<const Buffer*> ptrs;
  for (const Buffer& x : in) ptrs.push_back(&x);
  const Buffer mx = fold(ptrs, Op::predefined(P::MAXLOC));
  EXPECT_EQ(X::value(mx, 0), V(9));
  EXPECT_EQ(X::index(mx, 0), I(25));
  const Buffer mn = fold(ptrs, Op::predefined(P::MINLOC));
  EXPECT_EQ(X::value(mn, 0), V(-6));
  EXPECT_EQ(X::index(mn, 0), I(7));
}

template <class Pair>
void padding_is_never_written(Basic b) {
  using V = decltype(Pair::v);
  using I = decltype(Pair::i);
  using X = Pairs<Pair>;
  SCOPED_TRACE(std::string(info(b).mpi_name));
  const Datatype dt = Datatype::basic(b);
  const std::byte send_fill{0xA5}, recv_fill{0x5C};
  std::vector<Buffer> send;
  for (int r = 0; r < 3; ++r) {
    send.emplace_back(dt, 4, send_fill);
    for (int k = 0; k < 4; ++k) X::put(send.back(), k, V(k % 2 ? r : -r), I(10 * r + k));
  }
  for (P op : {P::MAXLOC, P::MINLOC}) {
    std::vector<Buffer> recv = test::recv_buffers(dt, 3, 4, recv_fill);
    reduce(send, Op::predefined(op), 1, recv);
    EXPECT_TRUE(test::holes_hold(recv[1], recv_fill));
    EXPECT_TRUE(test::holes_hold(recv[0], recv_fill));
    for (int k = 0; k < 4; ++k) {
      // Values are r or -r per element: MAXLOC picks rank 2 on odd elements and
      // rank 0 on even ones; MINLOC the other way round.
      const bool odd = k % 2;
      const int winner = (op == P::MAXLOC) == odd ? 2 : 0;
      EXPECT_EQ(X::index(recv[1], k), I(10 * winner + k)) << "element " << k;
    }
    const Buffer f = fold({&send[0], &send[1], &send[2]}, Op::predefined(op));
    EXPECT_TRUE(test::holes_hold(f, send_fill));
  }
  // Sends are read only.
  for (const Buffer& s : send) EXPECT_TRUE(test::holes_hold(s, send_fill));
}

#define ORDO_FOR_EVERY_PAIR(F)              \
  F<FloatInt>(Basic::FLOAT_INT);            \
  F<DoubleInt>(Basic::DOUBLE_INT);          \
  F<LongInt>(Basic::LONG_INT);              \
  F<TwoInt>(Basic::TWO_INT);                \
  F<ShortInt>(Basic::SHORT_INT);            \
  F<LongDoubleInt>(Basic::LONG_DOUBLE_INT); \
  F<TwoInt>(Basic::TWO_INTEGER);            \
  F<TwoFloat>(Basic::TWO_REAL);             \
  F<TwoDouble>(Basic::TWO_DOUBLE_PRECISION)

}  // namespace

TEST(MinlocMaxloc, ties_go_to_the_smaller_index_on_every_pair_type_in_both_operand_orders) {
  ORDO_FOR_EVERY_PAIR(ties_go_to_the_smaller_index);
}

TEST(MinlocMaxloc, the_winning_value_keeps_its_index_and_a_tie_across_ranks_takes_the_smaller_one) {
  ORDO_FOR_EVERY_PAIR(the_winning_value_keeps_its_own_index);
}

TEST(MinlocMaxloc, pair_padding_bytes_are_never_written) {
  ORDO_FOR_EVERY_PAIR(padding_is_never_written);
}

TEST(MinlocMaxloc, pair_types_with_padding_have_holes_to_check) {
  // The padding test above checks something only where there is padding.
  EXPECT_EQ(info(Basic::DOUBLE_INT).extent - info(Basic::DOUBLE_INT).size, 4u);
  EXPECT_EQ(info(Basic::SHORT_INT).extent - info(Basic::SHORT_INT).size, 2u);
  EXPECT_EQ(info(Basic::LONG_DOUBLE_INT).extent - info(Basic::LONG_DOUBLE_INT).size, 12u);
  EXPECT_EQ(info(Basic::LONG_INT).extent - info(Basic::LONG_INT).size, 4u);
}

TEST(MinlocMaxloc, a_pair_inside_a_derived_datatype_is_combined_as_a_unit) {
  // struct { MPI_2INT at 0, MPI_2INT at 16 }: two pairs per element, a hole between.
  const Datatype p = Datatype::basic(Basic::TWO_INT);
  const Datatype dt = Datatype::struct_({1, 1}, {0, 16}, {p, p});
  Buffer l(dt, 1, std::byte{0x11}), r(dt, 1, std::byte{0x11});
  const int lv[4] = {5, 3, 7, 1}, rv[4] = {5, 1, 8, 0};  // (value, index) x 2
  std::memcpy(l.data(), lv, 8);
  std::memcpy(l.data() + 16, lv + 2, 8);
  std::memcpy(r.data(), rv, 8);
  std::memcpy(r.data() + 16, rv + 2, 8);
  const Buffer f = fold({&l, &r}, Op::predefined(P::MAXLOC));
  int out[4];
  std::memcpy(out, f.data(), 8);
  std::memcpy(out + 2, f.data() + 16, 8);
  EXPECT_EQ(out[0], 5);
  EXPECT_EQ(out[1], 1);  // tie: smaller index
  EXPECT_EQ(out[2], 8);
  EXPECT_EQ(out[3], 0);
}
