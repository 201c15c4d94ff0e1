// Hand-checked values of every valid (predefined op, basic type) pair, through
// apply_predefined, including each type's extremes. The expectations are
// written here from the C semantics of each type, never computed by the
// reference; a coverage test makes sure no valid pair goes unchecked.
#include <gtest/gtest.h>

#include <cfloat>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "mpi41_op_table.h"
#include "ordo/reference/basic_types.h"
#include "ordo/reference/op.h"
#include "ordo/reference/semantics.h"
#include "test_util.h"

using namespace ordo::ref;
using namespace ordo::ref::test::pairs;
using P = PredefinedOp;
namespace mpi41 = ordo::ref::test::mpi41;

namespace {

constexpr std::byte kUnwritten{0xA5};

struct Check {
  P op;
  Basic type;
  std::vector<std::byte> left, right, expected;
};

// Bytes of one leaf that carry its value: x87 long double has 6 padding bytes.
std::vector<ByteRange> value_ranges(Basic b) {
  const BasicInfo& bi = info(b);
  auto sig = [](Scalar s) { return static_cast<std::ptrdiff_t>(significant_size(s)); };
  if (bi.group == TypeGroup::pair) {
    const auto io = static_cast<std::ptrdiff_t>(bi.index_offset);
    return {{0, sig(bi.scalar)}, {io, io + sig(bi.index_scalar)}};
  }
  if (bi.scalar == Scalar::cf80) {
    const auto half = static_cast<std::ptrdiff_t>(sizeof(long double));
    return {{0, 10}, {half, half + 10}};
  }
  return {{0, sig(bi.scalar)}};
}

class Checks {
 public:
  template <class T>
  void add(P op, Basic b, T l, T r, T e) {
    EXPECT_EQ(sizeof(T), info(b).extent) << info(b).mpi_name;
    v_.push_back({op, b, bytes(l, b), bytes(r, b), bytes(e, b)});
  }
  // A value-index pair in the C layout P of the pair type.
  template <class Pair, class V, class I>
  void add_pair(P op, Basic b, V lv, I li, V rv, I ri, V ev, I ei) {
    EXPECT_EQ(sizeof(Pair), info(b).extent) << info(b).mpi_name;
    v_.push_back({op, b, pair_bytes<Pair>(b, lv, li), pair_bytes<Pair>(b, rv, ri),
                  pair_bytes<Pair>(b, ev, ei)});
  }
  const std::vector<Check>& all() const { return v_; }

 private:
  template <class T>
  static std::vector<std::byte> bytes(T x, Basic b) {
    std::vector<std::byte> out(info(b).extent, kUnwritten);
    std::memcpy(out.data(), &x, sizeof x);
    return out;
  }
  template <class Pair, class V, class I>
  static std::vector<std::byte> pair_bytes(Basic b, V v, I i) {
    std::vector<std::byte> out(sizeof(Pair), kUnwritten);
    EXPECT_EQ(offsetof(Pair, i), info(b).index_offset) << info(b).mpi_name;
    std::memcpy(out.data() + offsetof(Pair, v), &v, sizeof v);
    std::memcpy(out.data() + offsetof(Pair, i), &i, sizeof i);
    return out;
  }
  std::vector<Check> v_;
};

template <class T>
void signed_integer(Checks& c, Basic b, bool c_integer) {
  const T mn = std::numeric_limits<T>::min(), mx = std::numeric_limits<T>::max();
  c.add<T>(P::MAX, b, mn, mx, mx);
  c.add<T>(P::MAX, b, T(-1), mn, T(-1));
  c.add<T>(P::MIN, b, mn, mx, mn);
  c.add<T>(P::MIN, b, T(-1), T(0), T(-1));
  c.add<T>(P::SUM, b, T(mx - 1), T(1), mx);
  c.add<T>(P::SUM, b, mn, mx, T(-1));
  c.add<T>(P::SUM, b, T(-7), T(3), T(-4));
  c.add<T>(P::PROD, b, T(-3), T(7), T(-21));
  c.add<T>(P::PROD, b, mn, T(1), mn);
  c.add<T>(P::PROD, b, T(-1), mx, T(mn + 1));
  if (c_integer) {
    c.add<T>(P::LAND, b, T(2), T(4), T(1));
    c.add<T>(P::LAND, b, T(0), mn, T(0));
    c.add<T>(P::LAND, b, T(-1), mn, T(1));
    c.add<T>(P::LOR, b, T(0), T(0), T(0));
    c.add<T>(P::LOR, b, T(0), mn, T(1));
    c.add<T>(P::LXOR, b, T(3), T(5), T(0));
    c.add<T>(P::LXOR, b, T(0), T(-1), T(1));
    c.add<T>(P::LXOR, b, T(0), T(0), T(0));
  }
  c.add<T>(P::BAND, b, T(2), T(4), T(0));
  c.add<T>(P::BAND, b, mn, T(-1), mn);
  c.add<T>(P::BAND, b, T(0x0C), T(0x0A), T(0x08));
  c.add<T>(P::BOR, b, mn, mx, T(-1));
  c.add<T>(P::BOR, b, T(0x0C), T(0x0A), T(0x0E));
  c.add<T>(P::BXOR, b, T(-1), mx, mn);
  c.add<T>(P::BXOR, b, T(0x0C), T(0x0A), T(0x06));
}

template <class T>
void unsigned_integer(Checks& c, Basic b) {
  const T mx = std::numeric_limits<T>::max();
  c.add<T>(P::MAX, b, T(0), mx, mx);
  c.add<T>(P::MIN, b, T(0), mx, T(0));
  c.add<T>(P::MIN, b, T(200), T(100), T(100));
  c.add<T>(P::SUM, b, mx, T(1), T(0));  // wraps modulo 2^bits
  c.add<T>(P::SUM, b, mx, mx, T(mx - 1));
  c.add<T>(P::PROD, b, mx, T(2), T(mx - 1));
  c.add<T>(P::PROD, b, mx, mx, T(1));
  c.add<T>(P::LAND, b, T(2), T(4), T(1));
  c.add<T>(P::LAND, b, T(0), mx, T(0));
  c.add<T>(P::LOR, b, T(0), mx, T(1));
  c.add<T>(P::LOR, b, T(0), T(0), T(0));
  c.add<T>(P::LXOR, b, mx, T(1), T(0));
  c.add<T>(P::LXOR, b, T(0), mx, T(1));
  c.add<T>(P::BAND, b, T(0xF0), T(0x3C), T(0x30));
  c.add<T>(P::BAND, b, mx, T(0x5A), T(0x5A));
  c.add<T>(P::BOR, b, T(0xF0), T(0x3C), T(0xFC));
  c.add<T>(P::BXOR, b, T(0xF0), T(0x3C), T(0xCC));
  c.add<T>(P::BXOR, b, mx, mx, T(0));
}

template <class T>
void floating(Checks& c, Basic b) {
  const T lo = std::numeric_limits<T>::lowest(), mx = std::numeric_limits<T>::max();
  const T inf = std::numeric_limits<T>::infinity(), tiny = std::numeric_limits<T>::denorm_min();
  c.add<T>(P::MAX, b, lo, mx, mx);
  c.add<T>(P::MAX, b, T(-0.5), T(-0.25), T(-0.25));
  c.add<T>(P::MAX, b, -inf, lo, lo);
  c.add<T>(P::MIN, b, lo, mx, lo);
  c.add<T>(P::MIN, b, tiny, T(0), T(0));
  c.add<T>(P::MIN, b, inf, mx, mx);
  c.add<T>(P::SUM, b, T(1.5), T(2.25), T(3.75));
  c.add<T>(P::SUM, b, mx, mx, inf);
  c.add<T>(P::SUM, b, mx, lo, T(0));
  c.add<T>(P::PROD, b, T(-1.5), T(4), T(-6));
  c.add<T>(P::PROD, b, mx, T(-1), lo);
  c.add<T>(P::PROD, b, tiny, T(2), T(2 * tiny));
}

template <class T>
void complex_type(Checks& c, Basic b) {
  using C = std::complex<T>;
  const T mx = std::numeric_limits<T>::max();
  c.add<C>(P::SUM, b, C(1, 2), C(3, 4), C(4, 6));
  c.add<C>(P::SUM, b, C(mx, -1), C(-mx, 1), C(0, 0));
  c.add<C>(P::PROD, b, C(1, 2), C(3, 4), C(-5, 10));
  c.add<C>(P::PROD, b, C(0, 1), C(0, 1), C(-1, 0));
  c.add<C>(P::PROD, b, C(2, 0), C(0, -3), C(0, -6));
}

template <class T>
void logical(Checks& c, Basic b, T yes, T other_true) {
  // Results are 0 or 1 whatever nonzero representation the inputs used.
  c.add<T>(P::LAND, b, yes, yes, T(1));
  c.add<T>(P::LAND, b, yes, T(0), T(0));
  c.add<T>(P::LAND, b, other_true, yes, T(1));
  c.add<T>(P::LOR, b, T(0), T(0), T(0));
  c.add<T>(P::LOR, b, yes, T(0), T(1));
  c.add<T>(P::LOR, b, T(0), other_true, T(1));
  c.add<T>(P::LXOR, b, yes, yes, T(0));
  c.add<T>(P::LXOR, b, T(0), yes, T(1));
  c.add<T>(P::LXOR, b, other_true, yes, T(0));
}

template <class Pair, class V, class I>
void pair_type(Checks& c, Basic b) {
  c.add_pair<Pair, V, I>(P::MAXLOC, b, V(1), I(7), V(2), I(3), V(2), I(3));
  c.add_pair<Pair, V, I>(P::MAXLOC, b, V(2), I(7), V(1), I(3), V(2), I(7));
  c.add_pair<Pair, V, I>(P::MAXLOC, b, V(5), I(9), V(5), I(4), V(5), I(4));  // tie
  c.add_pair<Pair, V, I>(P::MINLOC, b, V(1), I(7), V(2), I(3), V(1), I(7));
  c.add_pair<Pair, V, I>(P::MINLOC, b, V(2), I(7), V(1), I(3), V(1), I(3));
  c.add_pair<Pair, V, I>(P::MINLOC, b, V(-3), I(1), V(-2), I(0), V(-3), I(1));
  c.add_pair<Pair, V, I>(P::MINLOC, b, V(-4), I(2), V(-4), I(8), V(-4), I(2));  // tie
}

const Checks& registry() {
  static const Checks c = [] {
    Checks c;
    signed_integer<signed char>(c, Basic::SIGNED_CHAR, true);
    unsigned_integer<unsigned char>(c, Basic::UNSIGNED_CHAR);
    signed_integer<short>(c, Basic::SHORT, true);
    unsigned_integer<unsigned short>(c, Basic::UNSIGNED_SHORT);
    signed_integer<int>(c, Basic::INT, true);
    unsigned_integer<unsigned>(c, Basic::UNSIGNED);
    signed_integer<long>(c, Basic::LONG, true);
    unsigned_integer<unsigned long>(c, Basic::UNSIGNED_LONG);
    signed_integer<long long>(c, Basic::LONG_LONG, true);
    unsigned_integer<unsigned long long>(c, Basic::UNSIGNED_LONG_LONG);
    signed_integer<std::int8_t>(c, Basic::INT8_T, true);
    signed_integer<std::int16_t>(c, Basic::INT16_T, true);
    signed_integer<std::int32_t>(c, Basic::INT32_T, true);
    signed_integer<std::int64_t>(c, Basic::INT64_T, true);
    unsigned_integer<std::uint8_t>(c, Basic::UINT8_T);
    unsigned_integer<std::uint16_t>(c, Basic::UINT16_T);
    unsigned_integer<std::uint32_t>(c, Basic::UINT32_T);
    unsigned_integer<std::uint64_t>(c, Basic::UINT64_T);

    // Fortran INTEGER kinds as gfortran lays them out (INTEGER = INTEGER*4).
    signed_integer<std::int32_t>(c, Basic::INTEGER, false);
    signed_integer<std::int8_t>(c, Basic::INTEGER1, false);
    signed_integer<std::int16_t>(c, Basic::INTEGER2, false);
    signed_integer<std::int32_t>(c, Basic::INTEGER4, false);
    signed_integer<std::int64_t>(c, Basic::INTEGER8, false);

    floating<float>(c, Basic::FLOAT);
    floating<double>(c, Basic::DOUBLE);
    floating<long double>(c, Basic::LONG_DOUBLE);
    floating<float>(c, Basic::REAL);
    floating<double>(c, Basic::DOUBLE_PRECISION);
    floating<float>(c, Basic::REAL4);
    floating<double>(c, Basic::REAL8);

    logical<std::uint8_t>(c, Basic::C_BOOL, 1, 1);
    logical<std::uint8_t>(c, Basic::CXX_BOOL, 1, 1);
    logical<std::int32_t>(c, Basic::LOGICAL, 1, -7);  // Fortran: any nonzero is .TRUE.

    complex_type<float>(c, Basic::C_COMPLEX);
    complex_type<float>(c, Basic::C_FLOAT_COMPLEX);
    complex_type<double>(c, Basic::C_DOUBLE_COMPLEX);
    complex_type<long double>(c, Basic::C_LONG_DOUBLE_COMPLEX);
    complex_type<float>(c, Basic::CXX_FLOAT_COMPLEX);
    complex_type<double>(c, Basic::CXX_DOUBLE_COMPLEX);
    complex_type<long double>(c, Basic::CXX_LONG_DOUBLE_COMPLEX);
    complex_type<float>(c, Basic::COMPLEX);
    complex_type<double>(c, Basic::DOUBLE_COMPLEX);
    complex_type<float>(c, Basic::COMPLEX8);
    complex_type<double>(c, Basic::COMPLEX16);

    using U8 = std::uint8_t;
    c.add<U8>(P::BAND, Basic::BYTE, 0xF0, 0x3C, 0x30);
    c.add<U8>(P::BAND, Basic::BYTE, 0xFF, 0x00, 0x00);
    c.add<U8>(P::BOR, Basic::BYTE, 0xF0, 0x3C, 0xFC);
    c.add<U8>(P::BXOR, Basic::BYTE, 0xF0, 0x3C, 0xCC);
    c.add<U8>(P::BXOR, Basic::BYTE, 0xFF, 0x0F, 0xF0);

    for (Basic b : {Basic::AINT, Basic::OFFSET, Basic::COUNT}) {
      signed_integer<std::int64_t>(c, b, false);
      c.add<std::int64_t>(P::MAX, b, -5, -3, -3);
      c.add<std::int64_t>(P::MIN, b, -5, -3, -5);
      c.add<std::int64_t>(P::SUM, b, -5, -3, -8);
      c.add<std::int64_t>(P::PROD, b, -5, -3, 15);
      c.add<std::int64_t>(P::BAND, b, -8, 12, 8);
      c.add<std::int64_t>(P::BOR, b, -8, 3, -5);
      c.add<std::int64_t>(P::BXOR, b, -1, 5, -6);
    }

    pair_type<FloatInt, float, int>(c, Basic::FLOAT_INT);
    pair_type<DoubleInt, double, int>(c, Basic::DOUBLE_INT);
    pair_type<LongInt, long, int>(c, Basic::LONG_INT);
    pair_type<TwoInt, int, int>(c, Basic::TWO_INT);
    pair_type<ShortInt, short, int>(c, Basic::SHORT_INT);
    pair_type<LongDoubleInt, long double, int>(c, Basic::LONG_DOUBLE_INT);
    pair_type<TwoInt, int, int>(c, Basic::TWO_INTEGER);
    pair_type<TwoFloat, float, float>(c, Basic::TWO_REAL);
    pair_type<TwoDouble, double, double>(c, Basic::TWO_DOUBLE_PRECISION);
    return c;
  }();
  return c;
}

std::string describe(const Check& k) {
  return std::string(op_name(k.op)) + "(" + format_leaf(k.type, k.left.data()) + ", " +
         format_leaf(k.type, k.right.data()) + ") on " + std::string(info(k.type).mpi_name) +
         ": expected " + format_leaf(k.type, k.expected.data());
}

::testing::AssertionResult matches(const Check& k, const std::vector<std::byte>& out) {
  for (const ByteRange& r : value_ranges(k.type))
    if (std::memcmp(out.data() + r.begin, k.expected.data() + r.begin,
                    static_cast<std::size_t>(r.end - r.begin)) != 0)
      return ::testing::AssertionFailure()
             << describe(k) << ", got " << format_leaf(k.type, out.data());
  // Bytes outside the leaf's data (pair padding) are never written.
  std::vector<char> data(out.size(), 0);
  for (const ByteRange& r : leaf_ranges(k.type))
    for (std::ptrdiff_t x = r.begin; x < r.end; ++x) data[static_cast<std::size_t>(x)] = 1;
  for (std::size_t i = 0; i < out.size(); ++i)
    if (!data[i] && out[i] != kUnwritten)
      return ::testing::AssertionFailure() << describe(k) << ": padding byte " << i << " written";
  return ::testing::AssertionSuccess();
}

template <class T>
T apply1(P op, Basic b, T l, T r) {
  T o{};
  apply_predefined(op, b, reinterpret_cast<const std::byte*>(&l),
                   reinterpret_cast<const std::byte*>(&r), reinterpret_cast<std::byte*>(&o), 1);
  return o;
}

}  // namespace

TEST(OpValues, every_valid_op_and_type_pair_has_a_hand_checked_value) {
  std::map<std::pair<P, Basic>, int> n;
  for (const Check& k : registry().all()) ++n[{k.op, k.type}];
  for (P op : mpi41::kAllOps) {
    for (int i = 0; i < kBasicCount; ++i) {
      const Basic b = static_cast<Basic>(i);
      const int checks = n[std::make_pair(op, b)];
      if (mpi41::allowed(op, b)) {
        EXPECT_GT(checks, 0) << op_name(op) << " x " << info(b).mpi_name << " is unchecked";
      } else {
        EXPECT_EQ(checks, 0) << "a value check of a refused pair";
      }
    }
  }
}

TEST(OpValues, every_hand_checked_value_holds_into_a_separate_output) {
  for (const Check& k : registry().all()) {
    std::vector<std::byte> out(k.expected.size(), kUnwritten);
    apply_predefined(k.op, k.type, k.left.data(), k.right.data(), out.data(), 1);
    EXPECT_TRUE(matches(k, out));
  }
}

TEST(OpValues, every_hand_checked_value_holds_when_the_output_is_the_right_operand) {
  for (const Check& k : registry().all()) {
    std::vector<std::byte> inout = k.right;
    apply_predefined(k.op, k.type, k.left.data(), inout.data(), inout.data(), 1);
    EXPECT_TRUE(matches(k, inout));
  }
}

TEST(OpValues, every_hand_checked_value_holds_through_a_two_rank_fold) {
  for (const Check& k : registry().all()) {
    const Datatype dt = Datatype::basic(k.type);
    // Two elements, so that element 0's storage spans its whole extent
    // (a pair's true extent is shorter); element 1 is left as filled.
    Buffer x0(dt, 2, kUnwritten), x1(dt, 2, kUnwritten);
    std::memcpy(x0.data(), k.left.data(), k.left.size());
    std::memcpy(x1.data(), k.right.data(), k.right.size());
    const Buffer r = fold({&x0, &x1}, Op::predefined(k.op));
    std::vector<std::byte> out(r.data(), r.data() + k.expected.size());
    EXPECT_TRUE(matches(k, out));
  }
}

TEST(OpValues, apply_predefined_walks_n_elements_at_the_types_extent) {
  const std::vector<int> l = {1, -2, 3, -4}, r = {10, 20, -30, 40};
  std::vector<int> o(4);
  apply_predefined(P::SUM, Basic::INT, reinterpret_cast<const std::byte*>(l.data()),
                   reinterpret_cast<const std::byte*>(r.data()),
                   reinterpret_cast<std::byte*>(o.data()), 4);
  EXPECT_EQ(o, (std::vector<int>{11, 18, -27, 36}));
}

TEST(OpValues, uint8_sum_of_255_and_1_wraps_to_0) {
  EXPECT_EQ(apply1<std::uint8_t>(P::SUM, Basic::UINT8_T, 255, 1), 0);
  EXPECT_EQ(apply1<unsigned char>(P::SUM, Basic::UNSIGNED_CHAR, 255, 1), 0);
}

TEST(OpValues, uint64_max_times_2_wraps_to_max_minus_1) {
  EXPECT_EQ(apply1<std::uint64_t>(P::PROD, Basic::UINT64_T, 0xFFFFFFFFFFFFFFFFULL, 2),
            0xFFFFFFFFFFFFFFFEULL);
  EXPECT_EQ(apply1<std::uint64_t>(P::SUM, Basic::UINT64_T, 0xFFFFFFFFFFFFFFFFULL, 1), 0u);
}

TEST(OpValues, signed_char_keeps_its_integer_value) {
  EXPECT_EQ(apply1<signed char>(P::MAX, Basic::SIGNED_CHAR, -128, -1), -1);
  EXPECT_EQ(apply1<signed char>(P::MIN, Basic::SIGNED_CHAR, -128, -1), -128);
  EXPECT_EQ(apply1<signed char>(P::SUM, Basic::SIGNED_CHAR, -100, -20), -120);
}

TEST(OpValues, unsigned_char_compares_as_an_unsigned_integer) {
  EXPECT_EQ(apply1<unsigned char>(P::MIN, Basic::UNSIGNED_CHAR, 200, 100), 100);
  EXPECT_EQ(apply1<unsigned char>(P::MAX, Basic::UNSIGNED_CHAR, 200, 100), 200);
}

TEST(OpValues, c_bool_logic_follows_the_truth_tables) {
  for (Basic b : {Basic::C_BOOL, Basic::CXX_BOOL}) {
    for (bool x : {false, true})
      for (bool y : {false, true}) {
        EXPECT_EQ(apply1<bool>(P::LAND, b, x, y), x && y);
        EXPECT_EQ(apply1<bool>(P::LOR, b, x, y), x || y);
        EXPECT_EQ(apply1<bool>(P::LXOR, b, x, y), x != y);
      }
  }
}

TEST(OpValues, fortran_logical_treats_nonzero_as_true_and_yields_0_or_1) {
  EXPECT_EQ(apply1<std::int32_t>(P::LAND, Basic::LOGICAL, 5, -1), 1);
  EXPECT_EQ(apply1<std::int32_t>(P::LOR, Basic::LOGICAL, 0, 7), 1);
  EXPECT_EQ(apply1<std::int32_t>(P::LXOR, Basic::LOGICAL, 3, 9), 0);
  EXPECT_EQ(apply1<std::int32_t>(P::LXOR, Basic::LOGICAL, 0, 2), 1);
  EXPECT_EQ(apply1<std::int32_t>(P::LAND, Basic::LOGICAL, 0, 2), 0);
}

TEST(OpValues, logical_ops_on_integers_yield_0_or_1_and_bitwise_ops_do_not) {
  EXPECT_EQ(apply1<int>(P::LAND, Basic::INT, 2, 4), 1);
  EXPECT_EQ(apply1<int>(P::BAND, Basic::INT, 2, 4), 0);
  EXPECT_EQ(apply1<int>(P::LOR, Basic::INT, 2, 4), 1);
  EXPECT_EQ(apply1<int>(P::BOR, Basic::INT, 2, 4), 6);
  EXPECT_EQ(apply1<int>(P::LXOR, Basic::INT, 2, 4), 0);
  EXPECT_EQ(apply1<int>(P::BXOR, Basic::INT, 2, 4), 6);
}

TEST(OpValues, complex_product_of_1_plus_2i_and_3_plus_4i_is_minus_5_plus_10i) {
  using CD = std::complex<double>;
  EXPECT_EQ(apply1<CD>(P::PROD, Basic::C_DOUBLE_COMPLEX, CD(1, 2), CD(3, 4)), CD(-5, 10));
  using CF = std::complex<float>;
  EXPECT_EQ(apply1<CF>(P::PROD, Basic::COMPLEX, CF(1, 2), CF(3, 4)), CF(-5, 10));
  using CL = std::complex<long double>;
  EXPECT_EQ(apply1<CL>(P::PROD, Basic::C_LONG_DOUBLE_COMPLEX, CL(1, 2), CL(3, 4)), CL(-5, 10));
}

TEST(OpValues, long_double_keeps_its_extended_precision) {
  if (LDBL_MANT_DIG < 64) GTEST_SKIP() << "long double is not x87 extended precision here";
  const long double eps = 1.0L / 9223372036854775808.0L;  // 2^-63: lost in double
  EXPECT_EQ(apply1<long double>(P::SUM, Basic::LONG_DOUBLE, 1.0L, eps), 1.0L + eps);
  EXPECT_NE(apply1<long double>(P::SUM, Basic::LONG_DOUBLE, 1.0L, eps), 1.0L);
  EXPECT_EQ(apply1<long double>(P::MAX, Basic::LONG_DOUBLE, 1.0L, 1.0L + 2 * eps), 1.0L + 2 * eps);
}

TEST(OpValues, mpi_byte_is_combined_bit_by_bit) {
  EXPECT_EQ(apply1<std::uint8_t>(P::BAND, Basic::BYTE, 0xF0, 0x3C), 0x30);
  EXPECT_EQ(apply1<std::uint8_t>(P::BOR, Basic::BYTE, 0xF0, 0x3C), 0xFC);
  EXPECT_EQ(apply1<std::uint8_t>(P::BXOR, Basic::BYTE, 0xF0, 0x3C), 0xCC);
}

TEST(OpValues, aint_offset_and_count_hold_negative_values) {
  for (Basic b : {Basic::AINT, Basic::OFFSET, Basic::COUNT}) {
    EXPECT_EQ(apply1<std::int64_t>(P::SUM, b, -5, -3), -8) << info(b).mpi_name;
    EXPECT_EQ(apply1<std::int64_t>(P::MIN, b, -5, -3), -5);
    EXPECT_EQ(apply1<std::int64_t>(P::MAX, b, -5, -3), -3);
    EXPECT_EQ(apply1<std::int64_t>(P::PROD, b, -5, -3), 15);
    EXPECT_EQ(apply1<std::int64_t>(P::MIN, b, std::numeric_limits<std::int64_t>::min(), -1),
              std::numeric_limits<std::int64_t>::min());
  }
}
