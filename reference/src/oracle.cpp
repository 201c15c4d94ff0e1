#include "ordo/reference/oracle.h"

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>

#include "ordo/reference/erroneous.h"
#include "ordo/reference/errors.h"
#include "ordo/reference/semantics.h"
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

bool allows_in_place(Routine r) {
  return r != Routine::reduce_local && r != Routine::reduce_locals;
}

}  // namespace

Op op_for_case(const Case& c) {
  if (witness::is_witness(c.op)) return witness::make(c.op);
  auto p = op_from_name(c.op);
  if (!p) throw UsageError("unknown op '" + c.op + "'");
  return Op::predefined(*p);
}

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

std::vector<int> effective_recvcounts(const Case& c, const Topology& t) {
  if (!c.recvcounts.empty()) return c.recvcounts;
  if (c.routine == Routine::reduce_scatter_block) {
    if (!t.inter) return {};
    // low * size_low == high * size_high: each group scatters count * other size... elements.
    return {c.count * t.size_high, c.count * t.size_low};
  }
  auto pattern = [&](int n) {
    std::vector<int> v;
    for (int i = 0; i < n; ++i) v.push_back(std::max(0, c.count + (i % 3) - 1));
    return v;
  };
  std::vector<int> v = pattern(t.size_low);
  if (!t.inter) return v;
  const int total = std::accumulate(v.begin(), v.end(), 0);
  std::vector<int> high(static_cast<std::size_t>(t.size_high), total / t.size_high);
  high.back() += total % t.size_high;
  v.insert(v.end(), high.begin(), high.end());
  return v;
}

void validate_case(const Case& c, const Topology& t) {
  const Datatype dt = Datatype::parse(c.datatype);
  check_erroneous(c, t);  // a case that names an erroneous argument (DETECT)
  const Op op = op_for_case(c);
  op.check_usable_with(dt);
  if (witness::is_witness(c.op)) witness::check_datatype(dt);
  if (c.count < 0) throw UsageError("negative count");
  // Predefined ops take the predefined datatypes only (MPI-4.1 6.9.1: "work
  // only with the MPI types listed"); derived datatypes need a user op.
  // (One-sided accumulate differs: there a derived type of one basic type is allowed.)
  if (op.is_predefined()) {
    for (const std::string* text : {&c.datatype, &c.root_datatype})
      if (!text->empty() && !Datatype::parse(*text).predefined())
        throw SemanticsError("op.predefined-on-predefined-types",
                             std::string(op_name(op.predefined_op())) +
                                 " on the derived datatype " + *text +
                                 ": predefined ops take predefined datatypes only");
  }
  if (c.root_datatype.empty() && dt.overlaps_itself(std::max(1, c.count)))
    throw SemanticsError(
        "buffers.recv-overlap",
        "datatype " + dt.text() + " overlaps itself and lays out a receive buffer");
  // A user function combines in the datatype's layout (MPI-4.1 6.9.5), so
  // the datatype cannot overlap itself over the elements a process reduces,
  // unless the root lays out its buffers by a datatype of its own.
  if (!op.is_predefined() && c.root_datatype.empty() && c.routine != Routine::reduce_locals) {
    int span = c.count;
    if (c.routine == Routine::reduce_scatter_block)
      span = c.count * std::max(t.size_low, t.size_high) * 2;
    if (c.routine == Routine::reduce_scatter) {
      span = 0;
      for (int x : effective_recvcounts(c, t)) span += x;
    }
    if (dt.overlaps_itself(std::max(1, span)))
      throw UsageError("datatype " + dt.text() + " overlaps itself over the " +
                       std::to_string(span) + " elements a user function combines");
  }
  if (!c.root_datatype.empty()) {
    if (c.routine != Routine::reduce) throw UsageError("root_datatype applies to MPI_Reduce only");
    const Datatype rdt = Datatype::parse(c.root_datatype);
    op.check_usable_with(rdt);
    convert(Buffer(dt, 1), rdt);  // throws unless the type signatures match
    if (rdt.overlaps_itself(c.count))
      throw SemanticsError(
          "buffers.recv-overlap",
          "the root's datatype " + rdt.text() + " overlaps itself; it lays out a receive buffer");
  }
  if (c.routine == Routine::reduce_locals && c.in_place)
    throw SemanticsError(
        "reduce-locals.inout-not-in-place",
        "MPI_IN_PLACE is not allowed for the inoutbuf argument of MPI_Reduce_locals");
  if (c.routine == Routine::reduce_locals && c.alias_send_recv)
    throw SemanticsError("reduce-locals.distinct-from-inout",
                         "inbuf and argbuf must be distinct from inoutbuf in MPI_Reduce_locals");
  if (c.alias_send_recv)
    throw SemanticsError("buffers.send-recv-aliasing",
                         "the send and receive buffers of a collective may not be the same memory "
                         "(use MPI_IN_PLACE)");
  if (c.in_place && !allows_in_place(c.routine))
    throw SemanticsError(c.routine == Routine::reduce_local ? "reduce-local.no-in-place"
                                                            : "reduce-locals.inout-not-in-place",
                         std::string(mpi_routine_name(c.routine, c.mode)) +
                             " does not take MPI_IN_PLACE as its output");
  if (c.in_place && t.inter)
    throw SemanticsError("collective.in-place-intracomm-only",
                         "MPI_IN_PLACE is not allowed on an intercommunicator");
  if (t.inter && (c.routine == Routine::scan || c.routine == Routine::exscan)) scan_intercomm();
  const int p = t.size_low;
  if (c.routine == Routine::reduce) {
    const int n = t.inter ? (c.root_in_high_group ? t.size_high : t.size_low) : p;
    if (c.root < 0 || c.root >= n)
      throw UsageError("root " + std::to_string(c.root) + " out of range");
  }
  if (c.routine == Routine::reduce_scatter) {
    const std::size_t need = static_cast<std::size_t>(t.inter ? t.size_low + t.size_high : p);
    const std::vector<int> rc = effective_recvcounts(c, t);
    if (rc.size() != need)
      throw UsageError("reduce_scatter needs " + std::to_string(need) + " recvcounts");
    for (int x : rc)
      if (x < 0) throw UsageError("negative recvcount");
    if (t.inter) {
      const int a = std::accumulate(rc.begin(), rc.begin() + t.size_low, 0);
      const int b = std::accumulate(rc.begin() + t.size_low, rc.end(), 0);
      if (a != b)
        throw UsageError(
            "reduce_scatter on an intercommunicator: both groups must reduce the same number of "
            "elements");
    }
  }
  if (c.routine == Routine::reduce_scatter_block && t.inter) {
    const std::vector<int> rc = effective_recvcounts(c, t);
    if (rc.size() != 2 || rc[0] * t.size_low != rc[1] * t.size_high)
      throw UsageError(
          "reduce_scatter_block on an intercommunicator needs recvcounts [low, high] "
          "with low*size_low == high*size_high");
  }
}

namespace {
// full: plan(); erroneous: plan(..., true); buffers: plan_buffers().
enum class Planning { full, erroneous, buffers };
RankPlan plan_as(const Case& c, const Topology& t, Role me, Planning planning);
}  // namespace

RankPlan plan(const Case& c, const Topology& t, Role me, bool erroneous) {
  return plan_as(c, t, me, erroneous ? Planning::erroneous : Planning::full);
}

RankPlan plan_buffers(const Case& c, const Topology& t, Role me) {
  return plan_as(c, t, me, Planning::buffers);
}

namespace {
RankPlan plan_as(const Case& c, const Topology& t, Role me, Planning planning) {
  const bool expect = planning == Planning::full;
  // plan_buffers: the buffers of this rank alone; another rank's input or
  // receive buffer, made only to be reduced, is an empty placeholder.
  const bool own_only = planning == Planning::buffers;
  if (planning != Planning::erroneous) validate_case(c, t);
  const Datatype dt = Datatype::parse(c.datatype);
  const Op op = op_for_case(c);
  RankPlan pl;
  pl.datatype = c.datatype;
  using RR = RankPlan::RootRole;
  // Reduce with a root datatype: the root's buffers are laid out by it, and
  // the other ranks' inputs are what the library reads through theirs.
  const bool root_dt = c.routine == Routine::reduce && !c.root_datatype.empty();
  const Datatype rdt = root_dt ? Datatype::parse(c.root_datatype) : dt;
  auto as_root_layout = [&](std::vector<Buffer> v) {
    if (root_dt)
      for (Buffer& b : v) b = convert(b, rdt);
    return v;
  };

  auto inputs = [&](int group, int size, int count) {
    std::vector<Buffer> v;
    for (int r = 0; r < size; ++r)
      v.push_back(own_only && ((t.inter && group != me.group) || r != me.rank)
                      ? Buffer(dt, 0)
                      : make_input(c, dt, count, group, r));
    return v;
  };

  // ---- local reductions ----
  if (c.routine == Routine::reduce_local || c.routine == Routine::reduce_locals) {
    Buffer in = make_input(c, dt, c.count, 0, 0);
    Buffer inout = make_input(c, dt, c.count, 0, 1);
    pl.send_count = pl.recv_count = c.count;
    pl.recv_initial = inout;
    if (c.routine == Routine::reduce_local) {
      if (expect) reduce_local(in, inout, op);
      pl.send = in;
    } else {
      Buffer arg = c.locals_arg_is_in ? in : make_input(c, dt, c.count, 0, 2);
      const Buffer* x = c.locals_in_is_in_place ? nullptr : &in;
      const Buffer* y = c.locals_arg_is_in_place ? nullptr : (c.locals_arg_is_in ? x : &arg);
      if (c.locals_arg_is_in && c.locals_in_is_in_place) y = nullptr;
      if (expect) reduce_locals(x, y, &inout, op);
      if (!c.locals_in_is_in_place) pl.send = in;
      if (!c.locals_arg_is_in_place && !c.locals_arg_is_in) pl.arg = arg;
    }
    if (expect) pl.recv_expected = inout;
    pl.recv_compare_elements = c.count;
    return pl;
  }

  if (!t.inter) {
    const int p = t.size_low, r = me.rank;
    int send_count = c.count, recv_count = c.count;
    std::vector<int> counts;
    if (c.routine == Routine::reduce_scatter) {
      counts = effective_recvcounts(c, t);
      send_count = std::accumulate(counts.begin(), counts.end(), 0);
      recv_count = counts[r];
    } else if (c.routine == Routine::reduce_scatter_block) {
      counts.assign(p, c.count);
      send_count = p * c.count;
      recv_count = c.count;
    }
    // In place, or sendbuf == recvbuf (erroneous: DETECT): the receive buffer
    // is also what the library reads as input, send_count elements.
    const int recv_alloc = c.in_place || c.alias_send_recv ? send_count : recv_count;
    if (c.routine == Routine::reduce && r != c.root) {
      // Not the root: no result to expect, only this rank's own buffers.
      pl.send_count = send_count;
      pl.recv_count = recv_alloc;
      pl.recv_compare_elements = recv_count;
      pl.root_role = RR::other_in_root_group;
      pl.recv_significant = false;
      pl.result_defined = true;
      pl.send_significant = true;
      pl.send = make_input(c, dt, send_count, 0, r);
      pl.recv_initial = make_recv_initial(c, dt, recv_alloc, 0, r);
      return pl;
    }
    if (expect && !counts.empty()) {
      // Reduce_scatter(_block): rank r's block of the reduction is the
      // reduction of every rank's block r (MPI-4.1 Section 6.10), so only
      // those blocks of the other ranks' inputs are made (element k of a
      // block is element offset + k of the whole input: make_input's first),
      // and reduced by the same semantics with every other recvcount 0.
      int offset = 0;
      for (int q = 0; q < r; ++q) offset += counts[static_cast<std::size_t>(q)];
      const int mine = counts[static_cast<std::size_t>(r)];
      std::vector<Buffer> blocks;
      for (int q = 0; q < p; ++q) blocks.push_back(make_input(c, dt, mine, 0, q, offset));
      std::vector<int> block_counts(static_cast<std::size_t>(p), 0);
      block_counts[static_cast<std::size_t>(r)] = mine;
      std::vector<Buffer> recv;
      for (int q = 0; q < p; ++q) recv.emplace_back(dt, 0);
      // In place, the rest of the receive buffer keeps the rank's input.
      recv[static_cast<std::size_t>(r)] = c.in_place ? make_input(c, dt, recv_alloc, 0, r)
                                                     : make_recv_initial(c, dt, recv_alloc, 0, r);
      pl.recv_initial = recv[static_cast<std::size_t>(r)];
      reduce_scatter(blocks, block_counts, op, recv, false, r);
      pl.send_count = send_count;
      pl.recv_count = recv_alloc;
      pl.recv_compare_elements = recv_count;
      pl.root_role = RR::none;
      pl.recv_significant = true;
      pl.result_defined = true;
      pl.send_significant = !c.in_place;
      if (!c.in_place) pl.send = make_input(c, dt, send_count, 0, r);
      pl.recv_expected = std::move(recv[static_cast<std::size_t>(r)]);
      return pl;
    }
    // Scan / Exscan: rank r's result depends on ranks 0..r only.
    const int ranks_needed = c.routine == Routine::scan || c.routine == Routine::exscan ? r + 1 : p;
    std::vector<Buffer> send_own = inputs(0, ranks_needed, send_count);  // as each rank lays it out
    // With a root datatype, the inputs as the root reads them (a copy then).
    std::vector<Buffer> send_at_root;
    if (root_dt) {
      send_at_root = as_root_layout(send_own);
      if (!own_only || r == c.root)
        send_at_root[static_cast<std::size_t>(c.root)] = make_input(c, rdt, send_count, 0, c.root);
    }
    std::vector<Buffer>& send = root_dt ? send_at_root : send_own;
    std::vector<Buffer> recv;
    for (int q = 0; q < ranks_needed; ++q) {
      // Each rank's own receive size: with uneven recvcounts, rank q's block
      // need not fit in this rank's buffer.
      const int alloc_q =
          c.in_place || c.alias_send_recv || counts.empty() ? recv_alloc : counts[q];
      const bool in_place_here = c.in_place && (c.routine != Routine::reduce || q == c.root);
      const Datatype& qdt = root_dt && q == c.root ? rdt : dt;
      // Another rank's receive buffer counts only as its input (in place):
      // this process plans its own result alone (the semantics' `only`).
      if (q != r && (!in_place_here || own_only)) {
        recv.emplace_back(qdt, 0);
        continue;
      }
      recv.push_back(in_place_here ? make_input(c, qdt, alloc_q, 0, q)
                                   : make_recv_initial(c, qdt, alloc_q, 0, q));
    }
    pl.recv_initial = recv[r];
    if (root_dt && r == c.root) pl.datatype = c.root_datatype;
    std::vector<bool> defined(ranks_needed, true);
    if (expect) switch (c.routine) {
        case Routine::reduce:
          reduce(send, op, c.root, recv, c.in_place);
          break;
        case Routine::allreduce:
          allreduce(send, op, recv, c.in_place, r);
          break;
        case Routine::reduce_scatter:
        case Routine::reduce_scatter_block:
          reduce_scatter(send, counts, op, recv, c.in_place, r);
          break;
        case Routine::scan:
          scan(send, op, recv, c.in_place, r);
          break;
        case Routine::exscan:
          defined = exscan(send, op, recv, c.in_place, r);
          break;
        default:
          break;
      }
    // Exscan's rank 0 has no result (MPI-4.1 6.11.2), reduced or not.
    if (own_only && c.routine == Routine::exscan) defined[0] = false;
    pl.send_count = send_count;
    pl.recv_count = recv_alloc;
    pl.recv_compare_elements = recv_count;
    const bool is_root = c.routine != Routine::reduce || r == c.root;
    pl.root_role =
        c.routine == Routine::reduce ? (is_root ? RR::root : RR::other_in_root_group) : RR::none;
    pl.recv_significant = is_root;
    pl.result_defined = defined[r];
    const bool in_place_here = c.in_place && is_root;
    pl.send_significant = !in_place_here;
    if (!in_place_here) pl.send = std::move(root_dt && r != c.root ? send_own[r] : send[r]);
    if (pl.recv_significant && expect) pl.recv_expected = std::move(recv[r]);
    return pl;
  }

  // ---- intercommunicators ----
  // MPI_IN_PLACE here is erroneous (DETECT): each process's input is then
  // in its receive buffer, which is as large as its send buffer would be.
  auto in_place_input = [&](RankPlan& p) {
    if (!c.in_place) return;
    if (p.send) {
      p.recv_initial = p.send;
      p.recv_count = p.send_count;
    }
    p.send.reset();
    p.send_significant = false;
  };
  const int sizes[2] = {t.size_low, t.size_high};
  const int other = 1 - me.group;
  if (c.routine == Routine::reduce) {
    const int root_group = c.root_in_high_group ? 1 : 0;
    pl.send_count = pl.recv_count = pl.recv_compare_elements = c.count;
    if (me.group == root_group) {
      pl.send_significant = false;
      if (me.rank == c.root) {
        pl.root_role = RR::root;
        Buffer recv = make_recv_initial(c, rdt, c.count, me.group, me.rank);
        pl.recv_initial = recv;
        if (root_dt) pl.datatype = c.root_datatype;
        if (expect) {
          reduce_intercomm(as_root_layout(inputs(other, sizes[other], c.count)), op, recv);
          pl.recv_expected = recv;
        }
      } else {
        pl.root_role = RR::other_in_root_group;
        pl.recv_significant = false;
      }
    } else {
      pl.root_role = RR::in_other_group;
      pl.recv_significant = false;
      pl.send = make_input(c, dt, c.count, me.group, me.rank);
    }
    in_place_input(pl);
    return pl;
  }
  std::vector<int> counts_of[2];
  int send_count = c.count;
  if (c.routine == Routine::reduce_scatter) {
    const std::vector<int> rc = effective_recvcounts(c, t);
    counts_of[0].assign(rc.begin(), rc.begin() + t.size_low);
    counts_of[1].assign(rc.begin() + t.size_low, rc.end());
    send_count = std::accumulate(counts_of[0].begin(), counts_of[0].end(), 0);
  } else if (c.routine == Routine::reduce_scatter_block) {
    const std::vector<int> rc = effective_recvcounts(c, t);
    counts_of[0].assign(t.size_low, rc[0]);
    counts_of[1].assign(t.size_high, rc[1]);
    send_count = rc[0] * t.size_low;
  }
  // Allreduce (and Scan / Exscan, erroneous here: DETECT) receive count elements.
  const bool scattered =
      c.routine == Routine::reduce_scatter || c.routine == Routine::reduce_scatter_block;
  auto count_of = [&](int g, int q) { return scattered ? counts_of[g][q] : c.count; };
  const int recv_count = count_of(me.group, me.rank);
  std::vector<Buffer> send[2] = {inputs(0, sizes[0], send_count), inputs(1, sizes[1], send_count)};
  std::vector<Buffer> recv[2];
  for (int g = 0; g < 2; ++g)
    for (int q = 0; q < sizes[g]; ++q)
      recv[g].push_back(own_only && (g != me.group || q != me.rank)
                            ? Buffer(dt, 0)
                            : make_recv_initial(c, dt, count_of(g, q), g, q));
  pl.recv_initial = recv[me.group][me.rank];
  if (expect) {
    if (c.routine == Routine::allreduce)  // this rank's part of allreduce_intercomm
      reduce_intercomm(send[other], op, recv[me.group][me.rank]);
    else
      reduce_scatter_intercomm(send[0], send[1], counts_of[0], counts_of[1], op, recv[0], recv[1]);
    pl.recv_expected = recv[me.group][me.rank];
  }
  pl.send_count = send_count;
  pl.recv_count = pl.recv_compare_elements = recv_count;
  pl.send = send[me.group][me.rank];
  in_place_input(pl);
  return pl;
}

}  // namespace

void check_plannable_by_ranges(const Case& c, const Topology& t) {
  auto refuse = [&](const char* why) {
    throw UsageError(std::string("a case planned a range of elements at a time must be ") + why +
                     ": " + c.describe());
  };
  if (t.inter) refuse("on an intracommunicator");
  if (c.in_place) refuse("not in place");
  if (!c.root_datatype.empty()) refuse("without a root datatype");
  if (c.mode != Mode::blocking || !c.concurrency.empty()) refuse("one blocking call");
  if (c.routine == Routine::reduce_locals || !c.erroneous.empty() || c.alias_send_recv)
    refuse("a valid call of one of the six collectives or MPI_Reduce_local");
  const Datatype dt = Datatype::parse(c.datatype);
  // Element k's bytes are then exactly [k * extent, (k + 1) * extent), so a
  // range of elements is a range of bytes of the whole buffer.
  if (dt.lb() != 0 || dt.true_lb() != 0 || dt.true_ub() != dt.extent())
    refuse("of a datatype whose elements tile their extent from lower bound 0");
}

RankPlan plan_without_buffers(const Case& c, const Topology& t, Role me) {
  validate_case(c, t);
  check_plannable_by_ranges(c, t);
  using RR = RankPlan::RootRole;
  RankPlan pl;
  pl.datatype = c.datatype;
  const int p = t.size_low, r = me.rank;
  pl.send_count = pl.recv_count = pl.recv_compare_elements = c.count;
  switch (c.routine) {
    case Routine::reduce:
      pl.root_role = r == c.root ? RR::root : RR::other_in_root_group;
      pl.recv_significant = r == c.root;
      break;
    case Routine::reduce_scatter: {
      const std::vector<int> counts = effective_recvcounts(c, t);
      pl.send_count = std::accumulate(counts.begin(), counts.end(), 0);
      pl.recv_count = pl.recv_compare_elements = counts[static_cast<std::size_t>(r)];
      break;
    }
    case Routine::reduce_scatter_block:
      pl.send_count = p * c.count;
      break;
    case Routine::exscan:
      pl.result_defined = r != 0;
      break;
    default:
      break;
  }
  pl.mpi_root = c.root;
  return pl;
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

Buffer expected_range(const Case& c, const Topology& t, Role me, int first, int n) {
  const RankPlan pl = plan_without_buffers(c, t, me);
  if (!pl.recv_significant || !pl.result_defined)
    throw UsageError("no result is defined for this rank's receive buffer: " + c.describe());
  if (first < 0 || n < 0 || first + n > pl.recv_compare_elements)
    throw UsageError("elements [" + std::to_string(first) + ", " + std::to_string(first + n) +
                     ") are not in the receive buffer's " +
                     std::to_string(pl.recv_compare_elements));
  const Datatype dt = Datatype::parse(c.datatype);
  const Op op = op_for_case(c);
  Buffer recv = recv_initial_range(c, me, first, n);
  if (c.routine == Routine::reduce_local) {  // inoutvec: the input of a second process (plan())
    reduce_local(make_input(c, dt, n, 0, 0, first), recv, op);
    return recv;
  }
  // The ranks whose inputs me's result folds, in rank order, and the send
  // elements they contribute: Scan and Exscan stop at me (Exscan before it);
  // the scattering routines fold the elements of me's block.
  const int ranks = c.routine == Routine::scan     ? me.rank + 1
                    : c.routine == Routine::exscan ? me.rank
                                                   : t.size_low;
  const int send_first = send_element_of(c, t, me, first);
  std::vector<Buffer> inputs;
  for (int q = 0; q < ranks; ++q) inputs.push_back(make_input(c, dt, n, 0, q, send_first));
  std::vector<const Buffer*> in;
  for (const Buffer& b : inputs) in.push_back(&b);
  const Buffer res = fold(in, op);
  copy_elements(res, 0, recv, 0, n);
  return recv;
}

bool folds_shareable(const Case& c, const Topology& t) {
  if (t.inter || t.size_low < 2) return false;
  if (c.routine != Routine::reduce && c.routine != Routine::allreduce &&
      c.routine != Routine::scan && c.routine != Routine::exscan)
    return false;
  if (!c.erroneous.empty() || c.alias_send_recv || !c.root_datatype.empty()) return false;
  if (c.count <= 0) return false;
  const Datatype dt = Datatype::parse(c.datatype);
  return dt.extent() > 0 && dt.true_ub() - dt.true_lb() <= dt.extent();
}

int shared_fold_rows(const Case& c, const Topology& t) {
  if (!folds_shareable(c, t)) throw UsageError("no shared folds for this case: " + c.describe());
  switch (c.routine) {
    case Routine::scan:
      return t.size_low;
    case Routine::exscan:
      return t.size_low - 1;
    default:
      return 1;
  }
}

int shared_fold_row_of(const Case& c, const Topology& t, Role me) {
  if (!folds_shareable(c, t)) throw UsageError("no shared folds for this case: " + c.describe());
  if (me.group != 0 || me.rank < 0 || me.rank >= t.size_low)
    throw UsageError("no such rank of the communicator: " + std::to_string(me.rank));
  switch (c.routine) {
    case Routine::scan:
      return me.rank;
    case Routine::exscan:
      return me.rank - 1;
    case Routine::reduce:
      return me.rank == c.root ? 0 : -1;
    default:
      return 0;
  }
}

std::vector<Buffer> shared_folds(const Case& c, const Topology& t, int first, int n) {
  const int rows = shared_fold_rows(c, t);
  if (first < 0 || n < 0 || first + n > c.count)
    throw UsageError("elements [" + std::to_string(first) + ", " + std::to_string(first + n) +
                     ") are not among the case's " + std::to_string(c.count));
  validate_case(c, t);
  const Datatype dt = Datatype::parse(c.datatype);
  const Op op = op_for_case(c);
  std::vector<Buffer> out;
  // The running fold in rank order (plan(): fold() and scan(), a step at a time),
  // kept as it passes each row's rank.
  Buffer acc = make_input(c, dt, n, 0, 0, first);
  const bool running = c.routine == Routine::scan || c.routine == Routine::exscan;
  const int last = running ? rows - 1 : t.size_low - 1;
  if (running) out.push_back(acc);
  for (int q = 1; q <= last; ++q) {
    fold_into(acc, make_input(c, dt, n, 0, q, first), op);
    if (running) out.push_back(acc);
  }
  if (!running) out.push_back(std::move(acc));
  return out;
}

void write_fold_range(const Buffer& row, int first, Buffer& initial) {
  copy_elements(row, 0, initial, first, row.count());
}

int send_element_of(const Case& c, const Topology& t, Role me, int recv_element) {
  if (c.routine != Routine::reduce_scatter && c.routine != Routine::reduce_scatter_block)
    return recv_element;
  const std::vector<int> counts = effective_recvcounts(c, t);
  if (c.routine == Routine::reduce_scatter_block) {
    const int per_rank = t.inter ? counts[static_cast<std::size_t>(me.group)] : c.count;
    return me.rank * per_rank + recv_element;
  }
  // Reduce_scatter: the low group's counts, then (intercommunicator) the high group's.
  const std::size_t first = me.group == 0 ? 0 : static_cast<std::size_t>(t.size_low);
  int displ = 0;
  for (std::size_t q = first; q < first + static_cast<std::size_t>(me.rank) && q < counts.size();
       ++q)
    displ += counts[q];
  return displ + recv_element;
}

std::vector<witness::Contribution> multiset_contributions(const Case& c, const Topology& t,
                                                          Role me) {
  const Datatype dt = Datatype::parse(c.datatype);
  std::vector<witness::Contribution> out;
  for (int g = 0; g < (t.inter ? 2 : 1); ++g) {
    const int n = g == 0 ? t.size_low : t.size_high;
    for (int r = 0; r < n; ++r) {
      witness::Contribution k;
      k.group = g;
      k.rank = r;
      if (t.inter)
        k.expected = g != me.group;
      else if (c.routine == Routine::scan)
        k.expected = r <= me.rank;
      else if (c.routine == Routine::exscan)
        k.expected = r < me.rank;
      const int count = plan(c, t, Role{g, r}, /*erroneous=*/true).send_count;
      const Buffer in = make_input(c, dt, count, g, r);
      for (int e = 0; e < count; ++e) k.elements.push_back(witness::read_cells(in.element(e), dt));
      out.push_back(std::move(k));
    }
  }
  return out;
}

}  // namespace ordo::ref
