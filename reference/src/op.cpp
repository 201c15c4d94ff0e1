#include "ordo/reference/op.h"

#include <array>
#include <complex>
#include <cstdint>
#include <cstring>
#include <set>
#include <type_traits>
#include <vector>

#include "ordo/reference/errors.h"

namespace ordo::ref {
namespace {

using P = PredefinedOp;
using G = TypeGroup;

constexpr int kGroups = static_cast<int>(G::character) + 1;

// The op x type-group table of MPI-4.1 Section 6.9.2 (MINLOC/MAXLOC:
// Section 6.9.4). Columns: C integer, Fortran integer, Floating point,
// Logical, Complex, Byte, Multi-language types, pair, character.
// MPI_REPLACE and MPI_NO_OP are defined for one-sided accumulate only
// (Section 12.3.4) and allowed with no type in a reduction.
constexpr bool kAllowed[kPredefinedOpCount][kGroups] = {
    //            Cint Fint Flt  Log  Cplx Byte Mlang Pair Char
    /* MAX    */ {1, 1, 1, 0, 0, 0, 1, 0, 0},
    /* MIN    */ {1, 1, 1, 0, 0, 0, 1, 0, 0},
    /* SUM    */ {1, 1, 1, 0, 1, 0, 1, 0, 0},
    /* PROD   */ {1, 1, 1, 0, 1, 0, 1, 0, 0},
    /* LAND   */ {1, 0, 0, 1, 0, 0, 0, 0, 0},
    /* LOR    */ {1, 0, 0, 1, 0, 0, 0, 0, 0},
    /* LXOR   */ {1, 0, 0, 1, 0, 0, 0, 0, 0},
    /* BAND   */ {1, 1, 0, 0, 0, 1, 1, 0, 0},
    /* BOR    */ {1, 1, 0, 0, 0, 1, 1, 0, 0},
    /* BXOR   */ {1, 1, 0, 0, 0, 1, 1, 0, 0},
    /* MAXLOC */ {0, 0, 0, 0, 0, 0, 0, 1, 0},
    /* MINLOC */ {0, 0, 0, 0, 0, 0, 0, 1, 0},
    /* REPLACE*/ {0, 0, 0, 0, 0, 0, 0, 0, 0},
    /* NO_OP  */ {0, 0, 0, 0, 0, 0, 0, 0, 0},
};

constexpr std::array<std::string_view, kPredefinedOpCount> kNames = {
    "MPI_MAX",  "MPI_MIN", "MPI_SUM",  "MPI_PROD",   "MPI_LAND",   "MPI_LOR",     "MPI_LXOR",
    "MPI_BAND", "MPI_BOR", "MPI_BXOR", "MPI_MAXLOC", "MPI_MINLOC", "MPI_REPLACE", "MPI_NO_OP"};

template <class T>
T load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T>
void store(std::byte* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

template <class T, class F>
void loop(const std::byte* l, const std::byte* r, std::byte* o, std::size_t n, F f) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t off = i * sizeof(T);
    store<T>(o + off, f(load<T>(l + off), load<T>(r + off)));
  }
}

template <class T>
void integer_op(P op, const std::byte* l, const std::byte* r, std::byte* o, std::size_t n) {
  // Arithmetic wraps modulo 2^bits for every integer type; signed overflow is
  // undefined in C, so the catalogue avoids it for signed types.
  using U = std::make_unsigned_t<T>;
  switch (op) {
    case P::MAX:
      return loop<T>(l, r, o, n, [](T a, T b) { return b > a ? b : a; });
    case P::MIN:
      return loop<T>(l, r, o, n, [](T a, T b) { return b < a ? b : a; });
    case P::SUM:
      return loop<T>(l, r, o, n, [](T a, T b) {
        return static_cast<T>(static_cast<U>(static_cast<std::uint64_t>(static_cast<U>(a)) +
                                             static_cast<std::uint64_t>(static_cast<U>(b))));
      });
    case P::PROD:
      return loop<T>(l, r, o, n, [](T a, T b) {
        return static_cast<T>(static_cast<U>(static_cast<std::uint64_t>(static_cast<U>(a)) *
                                             static_cast<std::uint64_t>(static_cast<U>(b))));
      });
    case P::LAND:
      return loop<T>(l, r, o, n, [](T a, T b) { return T((a != 0) && (b != 0)); });
    case P::LOR:
      return loop<T>(l, r, o, n, [](T a, T b) { return T((a != 0) || (b != 0)); });
    case P::LXOR:
      return loop<T>(l, r, o, n, [](T a, T b) { return T((a != 0) != (b != 0)); });
    case P::BAND:
      return loop<T>(l, r, o, n, [](T a, T b) { return T(a & b); });
    case P::BOR:
      return loop<T>(l, r, o, n, [](T a, T b) { return T(a | b); });
    case P::BXOR:
      return loop<T>(l, r, o, n, [](T a, T b) { return T(a ^ b); });
    default:
      break;
  }
  throw SemanticsError("op.type-groups", "op not defined on integers");
}

template <class T>
void floating_op(P op, const std::byte* l, const std::byte* r, std::byte* o, std::size_t n) {
  switch (op) {
    case P::MAX:
      return loop<T>(l, r, o, n, [](T a, T b) { return b > a ? b : a; });
    case P::MIN:
      return loop<T>(l, r, o, n, [](T a, T b) { return b < a ? b : a; });
    case P::SUM:
      return loop<T>(l, r, o, n, [](T a, T b) { return a + b; });
    case P::PROD:
      return loop<T>(l, r, o, n, [](T a, T b) { return a * b; });
    default:
      break;
  }
  throw SemanticsError("op.type-groups", "op not defined on floating point");
}

template <class T>  // T: component type
void complex_op(P op, const std::byte* l, const std::byte* r, std::byte* o, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t off = 2 * i * sizeof(T);
    const T a = load<T>(l + off), b = load<T>(l + off + sizeof(T));
    const T c = load<T>(r + off), d = load<T>(r + off + sizeof(T));
    T re, im;
    if (op == P::SUM) {
      re = a + c;
      im = b + d;
    } else if (op == P::PROD) {  // (a + bi)(c + di), the textbook formula
      re = a * c - b * d;
      im = a * d + b * c;
    } else {
      throw SemanticsError("op.type-groups", "op not defined on complex");
    }
    store<T>(o + off, re);
    store<T>(o + off + sizeof(T), im);
  }
}

template <class T>  // logical types: any nonzero representation is true; results are 0 / 1
void logical_op(P op, const std::byte* l, const std::byte* r, std::byte* o, std::size_t n) {
  switch (op) {
    case P::LAND:
      return loop<T>(l, r, o, n, [](T a, T b) { return T((a != 0) && (b != 0)); });
    case P::LOR:
      return loop<T>(l, r, o, n, [](T a, T b) { return T((a != 0) || (b != 0)); });
    case P::LXOR:
      return loop<T>(l, r, o, n, [](T a, T b) { return T((a != 0) != (b != 0)); });
    default:
      break;
  }
  throw SemanticsError("op.type-groups", "op not defined on logical");
}

template <class V, class I>
void loc_op(P op, const BasicInfo& bi, const std::byte* l, const std::byte* r, std::byte* o,
            std::size_t n) {
  // MPI-4.1 Section 6.9.4: the larger (MAXLOC) or smaller (MINLOC) value wins;
  // on equal values the smaller index.
  const std::size_t ext = bi.extent, io = bi.index_offset;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t off = k * ext;
    const V u = load<V>(l + off), v = load<V>(r + off);
    const I i = load<I>(l + off + io), j = load<I>(r + off + io);
    V w;
    I idx;
    const bool left_wins = op == P::MAXLOC ? u > v : u < v;
    const bool right_wins = op == P::MAXLOC ? v > u : v < u;
    if (left_wins) {
      w = u;
      idx = i;
    } else if (right_wins) {
      w = v;
      idx = j;
    } else {
      w = u;
      idx = i < j ? i : j;
    }
    store<V>(o + off, w);
    store<I>(o + off + io, idx);
  }
}

template <class V>
void loc_dispatch_index(P op, const BasicInfo& bi, const std::byte* l, const std::byte* r,
                        std::byte* o, std::size_t n) {
  switch (bi.index_scalar) {
    case Scalar::i32:
      return loc_op<V, std::int32_t>(op, bi, l, r, o, n);
    case Scalar::f32:
      return loc_op<V, float>(op, bi, l, r, o, n);
    case Scalar::f64:
      return loc_op<V, double>(op, bi, l, r, o, n);
    default:
      throw SemanticsError("op.minloc-maxloc-pair-types", "unsupported pair index type");
  }
}

}  // namespace

std::string_view op_name(PredefinedOp op) { return kNames[static_cast<int>(op)]; }

std::optional<PredefinedOp> op_from_name(std::string_view name) {
  for (int i = 0; i < kPredefinedOpCount; ++i)
    if (kNames[i] == name) return static_cast<PredefinedOp>(i);
  return std::nullopt;
}

bool group_allows(PredefinedOp op, TypeGroup g) {
  return kAllowed[static_cast<int>(op)][static_cast<int>(g)];
}

Validity validity(PredefinedOp op, Basic type) {
  const BasicInfo& bi = info(type);
  if (group_allows(op, bi.group)) return {true, "", ""};
  const std::string what = std::string(op_name(op)) + " on " + std::string(bi.mpi_name);
  if (op == P::REPLACE || op == P::NO_OP)
    return {false, "op.replace-no-op-not-for-reductions",
            what + ": MPI_REPLACE and MPI_NO_OP are defined only for one-sided accumulate"};
  if (bi.group == G::character)
    return {false, "op.char-types-excluded",
            what +
                ": MPI_CHAR, MPI_WCHAR and MPI_CHARACTER are printable characters and may not "
                "be used in reductions"};
  if (op == P::MAXLOC || op == P::MINLOC)
    return {false, "op.minloc-maxloc-pair-types",
            what + ": MINLOC and MAXLOC take only the value-index pair types"};
  return {false, "op.type-groups",
          what + ": the " + std::string(group_name(bi.group)) + " group is not allowed for " +
              std::string(op_name(op))};
}

void apply_predefined(PredefinedOp op, Basic type, const std::byte* l, const std::byte* r,
                      std::byte* o, std::size_t n) {
  const Validity v = validity(op, type);
  if (!v.valid) throw SemanticsError(v.clause, v.reason);
  const BasicInfo& bi = info(type);
  if (bi.group == G::pair) {
    switch (bi.scalar) {
      case Scalar::f32:
        return loc_dispatch_index<float>(op, bi, l, r, o, n);
      case Scalar::f64:
        return loc_dispatch_index<double>(op, bi, l, r, o, n);
      case Scalar::f80:
        return loc_dispatch_index<long double>(op, bi, l, r, o, n);
      case Scalar::i16:
        return loc_dispatch_index<std::int16_t>(op, bi, l, r, o, n);
      case Scalar::i32:
        return loc_dispatch_index<std::int32_t>(op, bi, l, r, o, n);
      case Scalar::i64:
        return loc_dispatch_index<std::int64_t>(op, bi, l, r, o, n);
      default:
        throw SemanticsError("op.minloc-maxloc-pair-types", "unsupported pair value type");
    }
  }
  switch (bi.scalar) {
    case Scalar::i8:
      return integer_op<std::int8_t>(op, l, r, o, n);
    case Scalar::i16:
      return integer_op<std::int16_t>(op, l, r, o, n);
    case Scalar::i32:
      return integer_op<std::int32_t>(op, l, r, o, n);
    case Scalar::i64:
      return integer_op<std::int64_t>(op, l, r, o, n);
    case Scalar::u8:
      return integer_op<std::uint8_t>(op, l, r, o, n);
    case Scalar::u16:
      return integer_op<std::uint16_t>(op, l, r, o, n);
    case Scalar::u32:
      return integer_op<std::uint32_t>(op, l, r, o, n);
    case Scalar::u64:
      return integer_op<std::uint64_t>(op, l, r, o, n);
    case Scalar::byte:
      return integer_op<std::uint8_t>(op, l, r, o, n);
    case Scalar::f32:
      return floating_op<float>(op, l, r, o, n);
    case Scalar::f64:
      return floating_op<double>(op, l, r, o, n);
    case Scalar::f80:
      return floating_op<long double>(op, l, r, o, n);
    case Scalar::cf32:
      return complex_op<float>(op, l, r, o, n);
    case Scalar::cf64:
      return complex_op<double>(op, l, r, o, n);
    case Scalar::cf80:
      return complex_op<long double>(op, l, r, o, n);
    case Scalar::c_bool:
      return logical_op<std::uint8_t>(op, l, r, o, n);
    case Scalar::f_logical:
      return logical_op<std::int32_t>(op, l, r, o, n);
    case Scalar::ch8:
    case Scalar::wch:
      break;
  }
  throw SemanticsError("op.char-types-excluded", "characters are not valid in reductions");
}

Op Op::predefined(PredefinedOp op) {
  Op o;
  o.predefined_ = op;
  o.commute_ = true;
  o.name_ = std::string(op_name(op));
  return o;
}

Op Op::user(std::string name, UserFunction fn, bool commute) {
  Op o;
  o.fn_ = std::move(fn);
  o.commute_ = commute;
  o.name_ = std::move(name);
  return o;
}

void Op::check_usable_with(const Datatype& dt) const {
  if (!is_predefined()) return;
  std::set<Basic> seen;
  for (const Leaf& l : dt.typemap()) {
    if (!seen.insert(l.type).second) continue;
    const Validity v = validity(*predefined_, l.type);
    if (!v.valid) throw SemanticsError(v.clause, v.reason);
  }
  if (*predefined_ == P::REPLACE || *predefined_ == P::NO_OP) {
    const Validity v = validity(*predefined_, Basic::INT);
    throw SemanticsError(v.clause, v.reason);
  }
}

void combine(const Op& op, const Datatype& dt, int count, const std::byte* left,
             std::byte* right_inout) {
  if (count <= 0) return;
  if (!op.is_predefined()) {
    // MPI passes non-const buffers; the reference's left operand is never
    // written by a correct user function.
    op.function()(left, right_inout, count, dt);
    return;
  }
  Basic b;
  if (dt.is_contiguous_basic(&b)) {
    apply_predefined(op.predefined_op(), b, left, right_inout, right_inout,
                     static_cast<std::size_t>(count) * dt.typemap().size());
    return;
  }
  op.check_usable_with(dt);
  // A send datatype may overlap itself (MPI-4.1 Section 6.9.1 forbids it for
  // receive buffers only): then every leaf must read the right operand as it
  // was before this combine, not as an earlier leaf of it has just written it.
  const std::byte* right_in = right_inout;
  std::vector<std::byte> snapshot;
  std::ptrdiff_t shift = 0;
  if (dt.overlaps_itself(count)) {
    const ByteRange s = dt.span(count);
    snapshot.assign(right_inout + s.begin, right_inout + s.end);
    right_in = snapshot.data();
    shift = -s.begin;
  }
  for (int k = 0; k < count; ++k) {
    const std::ptrdiff_t base = static_cast<std::ptrdiff_t>(k) * dt.extent();
    for (const Leaf& l : dt.typemap())
      apply_predefined(op.predefined_op(), l.type, left + base + l.disp,
                       right_in + (shift + base + l.disp), right_inout + base + l.disp, 1);
  }
}

}  // namespace ordo::ref
