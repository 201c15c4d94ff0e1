// The oracle's inputs: the contents of every buffer a rank passes to MPI,
// a pure function of (case, group, rank, element). Each leaf's value comes
// from a hash of the seed, the process and the element, chosen for the op
// (in an exact case, so that every order of evaluation gives the same
// result: make_input); receive buffers start with a pattern that marks their
// holes (make_recv_initial). The range versions serve cases planned a range
// of elements at a time. The rest of the oracle: oracle_validation.cpp
// (which cases are well formed) and oracle_planning.cpp (each rank's plan).
#include <array>
#include <cmath>
#include <cstring>
#include <limits>

#include "ordo/reference/oracle.h"
#include "ordo/reference/witness.h"

namespace ordo::ref {
namespace {

std::uint64_t mix(std::uint64_t x) {  // splitmix64 finaliser
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
// The hash of one leaf of one process's input, in two steps so that the
// per-buffer part is computed once per buffer.
std::uint64_t hash_prefix(std::uint64_t seed, int group, int rank) {
  std::uint64_t h = mix(seed);
  h = mix(h ^ static_cast<std::uint64_t>(group + 1));
  return mix(h ^ static_cast<std::uint64_t>(rank + 7));
}

// A leaf's hash, mix(mix(prefix ^ element) ^ leaf), in two steps: the
// element's part once for all its leaves.
std::uint64_t element_hash(std::uint64_t prefix, int element) {
  return mix(prefix ^ static_cast<std::uint64_t>(element));
}
std::uint64_t leaf_hash(std::uint64_t element_part, int leaf) {
  return mix(element_part ^ static_cast<std::uint64_t>(leaf));
}

template <class T>
void put(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

// An x87 long double: its 10 significant bytes, the padding after them 0
// (copying the whole object would copy indeterminate padding, and the same
// input made twice would differ there).
void put_f80(std::byte* p, long double v) {
  std::memset(p, 0, sizeof v);
  std::memcpy(p, &v, 10);
}

template <class T>
T pick(std::uint64_t u, std::initializer_list<T> xs) {
  return *(xs.begin() + u % xs.size());
}

// c ? a : b without a branch: the condition is a hash bit, taken at random,
// which a branch would mispredict about every third value.
std::uint64_t select(bool c, std::uint64_t a, std::uint64_t b) {
  const std::uint64_t mask = 0 - static_cast<std::uint64_t>(c);
  return (a & mask) | (b & ~mask);
}

// 2^e for e in [-32, 32]: x * two_to(e) is std::ldexp(x, e) exactly while
// the result is normal, as every use below is (|x| >= 2^-53 or 0, e >= -23),
// and it costs a multiplication instead of a library call per value.
double two_to(int e) {
  static const auto table = [] {
    std::array<double, 65> t{};
    for (int i = 0; i < 65; ++i) t[static_cast<std::size_t>(i)] = std::ldexp(1.0, i - 32);
    return t;
  }();
  return table[static_cast<std::size_t>(e + 32)];
}

// Writes one scalar chosen for `op` so that every order of evaluation gives
// the same exact result (integers in range, small dyadic floats). Inlined
// into fill_single's loops, where `s` is a constant and the switch goes.
[[gnu::always_inline]] inline void put_scalar(Scalar s, PredefinedOp op, std::uint64_t u,
                                              std::byte* p, bool exact) {
  const bool arith = op == PredefinedOp::SUM || op == PredefinedOp::PROD;
  const bool logical =
      op == PredefinedOp::LAND || op == PredefinedOp::LOR || op == PredefinedOp::LXOR;
  auto sint = [&](int bits) -> long long {
    if (logical) return pick<long long>(u, {0, 1, -1, 2, 256, 0});
    if (op == PredefinedOp::PROD)
      return bits <= 16 ? pick<long long>(u, {-1, 1, 1}) : pick<long long>(u, {-2, -1, 1, 1, 2});
    if (op == PredefinedOp::SUM) {
      // In unsigned arithmetic: 1 << 63 does not fit a long long.
      const std::uint64_t r = (std::uint64_t{1} << (bits - 1)) / 16;
      return static_cast<long long>(u % (2 * r + 1)) - static_cast<long long>(r);
    }
    // MAX/MIN/bitwise: every bit pattern, and often the type's edges.
    const long long lo = bits == 64 ? std::numeric_limits<long long>::min() : -(1LL << (bits - 1));
    const long long hi =
        bits == 64 ? std::numeric_limits<long long>::max() : (1LL << (bits - 1)) - 1;
    return static_cast<long long>(select(
        ((u >> 56) & 7) < 3,
        static_cast<std::uint64_t>(pick<long long>(u >> 48, {lo, hi, 0, -1, 1, lo + 1, hi - 1})),
        u));
  };
  // Unsigned: every bit pattern (arithmetic wraps), often the edges and the
  // values whose signed reading is negative.
  auto uint = [&](int bits) -> std::uint64_t {
    const std::uint64_t max = bits == 64 ? ~0ULL : (1ULL << bits) - 1;
    if (logical) return pick<std::uint64_t>(u, {0, 1, max, 2});
    return select(((u >> 56) & 7) < 3,
                  pick<std::uint64_t>(u >> 48, {0, max, 1, max - 1, (max >> 1) + 1, max >> 1}),
                  u & max);
  };
  auto real = [&]() -> double {
    if (!exact) {  // full mantissas over 40 binades: rounding depends on the order
      const double m = static_cast<double>(static_cast<std::int64_t>(u >> 11)) / 9007199254740992.0;
      return m * two_to(static_cast<int>((u >> 3) % 41) - 20);
    }
    if (op == PredefinedOp::PROD) return pick<double>(u, {1.0, -1.0, 2.0, -2.0, 0.5, -0.5});
    if (op == PredefinedOp::SUM)
      return static_cast<double>(static_cast<long long>(u % 2049) - 1024);
    return static_cast<double>(static_cast<std::int32_t>(u)) *
           two_to(-static_cast<int>((u >> 40) % 24));
  };
  // MAX / MIN on floating point: also the extremes of the type.
  const bool float_edge =
      (op == PredefinedOp::MAX || op == PredefinedOp::MIN) && exact && ((u >> 56) & 7) < 2;
  auto edge = [&](auto type_tag) {
    using T = decltype(type_tag);
    return pick<T>(u >> 48,
                   {std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max(),
                    std::numeric_limits<T>::denorm_min(), -std::numeric_limits<T>::denorm_min(),
                    std::numeric_limits<T>::min(), T(1), T(-1)});
  };
  switch (s) {
    case Scalar::i8:
      return put<std::int8_t>(p, static_cast<std::int8_t>(sint(8)));
    case Scalar::i16:
      return put<std::int16_t>(p, static_cast<std::int16_t>(sint(16)));
    case Scalar::i32:
      return put<std::int32_t>(p, static_cast<std::int32_t>(sint(32)));
    case Scalar::i64:
      return put<std::int64_t>(p, static_cast<std::int64_t>(sint(64)));
    case Scalar::u8:
    case Scalar::byte:
      return put<std::uint8_t>(p, static_cast<std::uint8_t>(uint(8)));
    case Scalar::u16:
      return put<std::uint16_t>(p, static_cast<std::uint16_t>(uint(16)));
    case Scalar::u32:
      return put<std::uint32_t>(p, static_cast<std::uint32_t>(uint(32)));
    case Scalar::u64:
      return put<std::uint64_t>(p, uint(64));
    case Scalar::f32: {
      const float a = edge(float{}), b = static_cast<float>(real());
      std::uint32_t ab, bb;  // selected by their bits: without a branch (see select)
      std::memcpy(&ab, &a, 4);
      std::memcpy(&bb, &b, 4);
      return put<std::uint32_t>(p, static_cast<std::uint32_t>(select(float_edge, ab, bb)));
    }
    case Scalar::f64: {
      const double a = edge(double{}), b = real();
      std::uint64_t ab, bb;
      std::memcpy(&ab, &a, 8);
      std::memcpy(&bb, &b, 8);
      return put<std::uint64_t>(p, select(float_edge, ab, bb));
    }
    case Scalar::f80: {
      return put_f80(p, float_edge ? edge(static_cast<long double>(0)) : real());
    }
    case Scalar::cf32:
    case Scalar::cf64:
    case Scalar::cf80: {
      // Products of complex values stay exact with components in {-1, 1};
      // no zero component, so that a zero in a product only comes from exact
      // cancellation and is +0 in every order (a 0 factor component makes
      // the sign of a zero result depend on the order of the combines).
      auto comp = [&](std::uint64_t x) {
        return op == PredefinedOp::PROD
                   ? (x % 2 ? 1.0 : -1.0)
                   : static_cast<double>(static_cast<long long>(x % 2049) - 1024);
      };
      const double re = comp(u), im = comp(u >> 20);
      if (s == Scalar::cf32) {
        put<float>(p, static_cast<float>(re));
        put<float>(p + 4, static_cast<float>(im));
      } else if (s == Scalar::cf64) {
        put<double>(p, re);
        put<double>(p + 8, im);
      } else {
        put_f80(p, re);
        put_f80(p + sizeof(long double), im);
      }
      return;
    }
    case Scalar::c_bool:
      return put<std::uint8_t>(p, static_cast<std::uint8_t>(u & 1));
    case Scalar::f_logical:
      return put<std::int32_t>(p, static_cast<std::int32_t>(u & 1));
    case Scalar::ch8:
      return put<char>(p, static_cast<char>('a' + u % 26));
    case Scalar::wch:
      return put<wchar_t>(p, static_cast<wchar_t>(L'a' + u % 26));
  }
  (void)arith;
}

void put_leaf(Basic b, PredefinedOp op, std::uint64_t u, std::byte* p, bool exact) {
  const BasicInfo& bi = info(b);
  if (bi.group != TypeGroup::pair) return put_scalar(bi.scalar, op, u, p, exact);
  // Few distinct values, so that ties are common; indices are not monotonic in rank.
  const int value = static_cast<int>(u % 4) - 1;
  const int index = static_cast<int>((u >> 8) % 1000);
  switch (bi.scalar) {
    case Scalar::f32:
      put<float>(p, static_cast<float>(value));
      break;
    case Scalar::f64:
      put<double>(p, value);
      break;
    case Scalar::f80:
      put_f80(p, value);
      break;
    case Scalar::i16:
      put<std::int16_t>(p, static_cast<std::int16_t>(value));
      break;
    case Scalar::i32:
      put<std::int32_t>(p, value);
      break;
    case Scalar::i64:
      put<std::int64_t>(p, value);
      break;
    default:
      break;
  }
  std::byte* ip = p + bi.index_offset;
  switch (bi.index_scalar) {
    case Scalar::i32:
      put<std::int32_t>(ip, index);
      break;
    case Scalar::f32:
      put<float>(ip, static_cast<float>(index));
      break;
    case Scalar::f64:
      put<double>(ip, index);
      break;
    default:
      break;
  }
}

// The inputs of a datatype of one scalar leaf (the common case): the same
// values as put_leaf gives element by element, with the scalar's switch
// resolved once per buffer rather than once per value.
template <Scalar S>
void fill_scalar(Buffer& b, int count, std::ptrdiff_t disp, PredefinedOp op, std::uint64_t prefix,
                 int first, bool exact) {
  for (int k = 0; k < count; ++k)
    put_scalar(S, op, leaf_hash(element_hash(prefix, first + k), 0), b.element(k) + disp, exact);
}

void fill_single(Scalar s, Buffer& b, int count, std::ptrdiff_t disp, PredefinedOp op,
                 std::uint64_t prefix, int first, bool exact) {
  switch (s) {
#define ORDO_FILL(S) \
  case Scalar::S:    \
    return fill_scalar<Scalar::S>(b, count, disp, op, prefix, first, exact);
    ORDO_FILL(i8)
    ORDO_FILL(i16)
    ORDO_FILL(i32)
    ORDO_FILL(i64)
    ORDO_FILL(u8)
    ORDO_FILL(u16)
    ORDO_FILL(u32)
    ORDO_FILL(u64)
    ORDO_FILL(f32)
    ORDO_FILL(f64)
    ORDO_FILL(f80)
    ORDO_FILL(c_bool)
    ORDO_FILL(f_logical)
    ORDO_FILL(cf32)
    ORDO_FILL(cf64)
    ORDO_FILL(cf80)
    ORDO_FILL(byte)
    ORDO_FILL(ch8)
    ORDO_FILL(wch)
#undef ORDO_FILL
  }
}

}  // namespace

Buffer make_input(const Case& c, const Datatype& dt, int count, int group, int rank, int first) {
  // Holes of send buffers carry their own pattern, so a library that reads
  // them by mistake computes something else.
  Buffer b(dt, count, std::byte{0xC3});
  const std::uint64_t prefix = hash_prefix(c.seed, group, rank);
  if (witness::is_witness(c.op)) {
    witness::check_datatype(dt);
    // Leaf j is slot j % 4 of cell j / 4 (whole cells: check_datatype).
    const auto& tm = dt.typemap();
    const bool tracer = witness::is_tracer(c.op);
    for (int k = 0; k < count; ++k) {
      std::byte* element = b.element(k);
      const std::uint64_t at = element_hash(prefix, first + k);
      for (std::size_t j = 0; j < tm.size(); ++j) {
        const std::int32_t v = tracer
                                   ? (j % 4 < 2 ? rank : witness::kNoFault)
                                   : static_cast<std::int32_t>(leaf_hash(at, static_cast<int>(j)));
        std::memcpy(element + tm[j].disp, &v, 4);
      }
    }
    return b;
  }
  const PredefinedOp op = op_from_name(c.op).value_or(PredefinedOp::SUM);
  const auto& tm = dt.typemap();
  if (count > 0 && tm.size() == 1 && info(tm[0].type).group != TypeGroup::pair) {
    fill_single(info(tm[0].type).scalar, b, count, tm[0].disp, op, prefix, first, c.exact);
    return b;
  }
  // Element by element, leaf by leaf, in typemap order (where leaves or
  // elements overlap, the later one's value stays).
  for (int k = 0; k < count; ++k) {
    std::byte* element = b.element(k);
    const std::uint64_t at = element_hash(prefix, first + k);
    for (std::size_t j = 0; j < tm.size(); ++j)
      put_leaf(tm[j].type, op, leaf_hash(at, static_cast<int>(j)), element + tm[j].disp, c.exact);
  }
  return b;
}

Buffer make_recv_initial(const Case& c, const Datatype& dt, int count, int group, int rank) {
  (void)c;
  (void)group;
  (void)rank;
  return Buffer(dt, count, std::byte{0x5A});
}

Buffer input_range(const Case& c, Role me, int first, int n) {
  return make_input(c, Datatype::parse(c.datatype), n, me.group, me.rank, first);
}

Buffer recv_initial_range(const Case& c, Role me, int first, int n) {
  const Datatype dt = Datatype::parse(c.datatype);
  // MPI_Reduce_local's inoutbuf holds an input (plan()); the others a
  // pattern that is the same at every element.
  if (c.routine == Routine::reduce_local) return make_input(c, dt, n, 0, 1, first);
  return make_recv_initial(c, dt, n, me.group, me.rank);
}

}  // namespace ordo::ref
