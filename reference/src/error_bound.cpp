#include "ordo/reference/error_bound.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "ordo/reference/errors.h"
#include "ordo/reference/op.h"

namespace ordo::ref {
namespace {

template <class T>
long double load(const std::byte* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return static_cast<long double>(v);
}

// The value of one slot, and the machine epsilon of its type (0: exact).
long double slot_value(const std::byte* element, const ValueSlot& s) {
  const std::byte* p = element + s.offset;
  switch (s.scalar) {
    case Scalar::f32:
      return load<float>(p);
    case Scalar::f64:
      return load<double>(p);
    case Scalar::f80:
      return load<long double>(p);
    case Scalar::i8:
      return load<std::int8_t>(p);
    case Scalar::i16:
      return load<std::int16_t>(p);
    case Scalar::i32:
    case Scalar::f_logical:
      return load<std::int32_t>(p);
    case Scalar::i64:
      return load<std::int64_t>(p);
    case Scalar::u8:
    case Scalar::byte:
    case Scalar::c_bool:
      return load<std::uint8_t>(p);
    case Scalar::u16:
      return load<std::uint16_t>(p);
    case Scalar::u32:
      return load<std::uint32_t>(p);
    case Scalar::u64:
      return load<std::uint64_t>(p);
    case Scalar::ch8:
      return load<char>(p);
    case Scalar::wch:
      return load<wchar_t>(p);
    case Scalar::cf32:
    case Scalar::cf64:
    case Scalar::cf80:
      break;  // value_slots splits complex leaves into their components
  }
  return 0;
}

long double epsilon(Scalar s) {
  switch (s) {
    case Scalar::f32:
      return std::numeric_limits<float>::epsilon();
    case Scalar::f64:
      return std::numeric_limits<double>::epsilon();
    case Scalar::f80:
      return std::numeric_limits<long double>::epsilon();
    default:
      return 0;  // integers, logicals, bytes, characters: exact
  }
}

// The (group, rank) of each input that makes up this rank's result, and the
// element of those inputs that element 0 of the result comes from.
struct Contributors {
  std::vector<std::pair<int, int>> inputs;
  int first = 0;
  int input_count = 0;  // elements in each input buffer
};

Contributors contributors(const Case& c, const Topology& t, Role me, const RankPlan& plan) {
  Contributors k;
  k.input_count = plan.send_count;
  switch (c.routine) {
    case Routine::reduce_local:
      k.inputs = {{0, 0}, {0, 1}};  // inbuf, inoutbuf (the oracle's inputs)
      k.input_count = c.count;
      return k;
    case Routine::reduce_locals: {
      const int x = c.locals_in_is_in_place ? 1 : 0;
      const int y = c.locals_arg_is_in_place ? 1 : (c.locals_arg_is_in ? x : 2);
      k.inputs = {{0, x}, {0, y}};
      k.input_count = c.count;
      return k;
    }
    case Routine::scan:
    case Routine::exscan:
      for (int r = 0; r < contributions(c, t, me); ++r) k.inputs.push_back({0, r});
      return k;
    default:
      break;
  }
  const int group = t.inter ? 1 - me.group : 0;
  const int n = contributions(c, t, me);
  for (int r = 0; r < n; ++r) k.inputs.push_back({group, r});
  if (c.routine == Routine::reduce_scatter_block) {
    k.first = me.rank * plan.recv_compare_elements;
  } else if (c.routine == Routine::reduce_scatter) {
    const std::vector<int> rc = effective_recvcounts(c, t);
    const std::size_t base = t.inter && me.group == 1 ? static_cast<std::size_t>(t.size_low) : 0;
    for (int r = 0; r < me.rank; ++r) k.first += rc[base + static_cast<std::size_t>(r)];
  }
  return k;
}

}  // namespace

std::vector<ValueSlot> value_slots(const Datatype& dt) {
  std::vector<ValueSlot> slots;
  const auto& tm = dt.typemap();
  for (std::size_t j = 0; j < tm.size(); ++j) {
    const BasicInfo& bi = info(tm[j].type);
    const Scalar s = bi.scalar;
    if (bi.group == TypeGroup::pair) {
      slots.push_back({j, 0, tm[j].disp, s});
      slots.push_back(
          {j, 1, tm[j].disp + static_cast<std::ptrdiff_t>(bi.index_offset), bi.index_scalar});
    } else if (s == Scalar::cf32 || s == Scalar::cf64 || s == Scalar::cf80) {
      const Scalar part = s == Scalar::cf32   ? Scalar::f32
                          : s == Scalar::cf64 ? Scalar::f64
                                              : Scalar::f80;
      const auto half = static_cast<std::ptrdiff_t>(scalar_size(part));
      slots.push_back({j, 0, tm[j].disp, part});
      slots.push_back({j, 1, tm[j].disp + half, part});
    } else {
      slots.push_back({j, 0, tm[j].disp, s});
    }
  }
  return slots;
}

int contributions(const Case& c, const Topology& t, Role me) {
  switch (c.routine) {
    case Routine::reduce_local:
    case Routine::reduce_locals:
      return 2;
    case Routine::scan:
      return me.rank + 1;
    case Routine::exscan:
      return me.rank;
    default:
      break;
  }
  if (t.inter) return me.group == 0 ? t.size_high : t.size_low;
  return t.size_low;
}

namespace {

// The bound of each value of this rank's result, one at a time: what
// error_bound() keeps for every value and first_outside_error_bound() uses
// as it compares.
class Bounds {
 public:
  Bounds(const Case& c, const Topology& t, Role me, const RankPlan& plan)
      : dt_(Datatype::parse(plan.datatype)), slots_(value_slots(dt_)) {
    const auto pop = op_from_name(c.op);
    sum_ = pop == PredefinedOp::SUM;
    prod_ = pop == PredefinedOp::PROD;
    who_ = contributors(c, t, me, plan);
    n_ = static_cast<int>(who_.inputs.size());
    bool inexact = false;
    for (const ValueSlot& slot : slots_) {
      eps_.push_back(epsilon(slot.scalar));
      const Scalar full = info(dt_.typemap()[slot.leaf].type).scalar;
      complex_.push_back(full == Scalar::cf32 || full == Scalar::cf64 || full == Scalar::cf80);
      inexact = inexact || eps_.back() != 0;
    }
    if (!inexact || n_ <= 1 || !(sum_ || prod_)) return;  // every bound is 0
    // Every element the result's values come from is in the inputs.
    const int elements = plan.recv_compare_elements;
    if (elements > 0 && who_.first + elements > who_.input_count) {
      const int e = std::max(who_.first, who_.input_count);
      throw UsageError("error_bound: element " + std::to_string(e) + " beyond the inputs");
    }
    // Only the elements the result's values come from (Reduce_scatter's
    // block), where each element of an input is made alone (make_input's
    // first: elements that do not overlap); otherwise the whole input.
    const bool apart = dt_.extent() > 0 && dt_.true_ub() - dt_.true_lb() <= dt_.extent();
    offset_ = apart ? who_.first : 0;
    const int count = apart ? elements : who_.input_count;
    for (const auto& [group, rank] : who_.inputs)
      inputs_.push_back(make_input(c, dt_, count, group, rank, offset_));
  }

  std::size_t slots() const { return slots_.size(); }

  // The bound of slot s of element k of the result.
  long double at(int k, std::size_t s) const {
    const long double eps = eps_[s];
    // One contribution is a copy, and an exact type or op is exact: 0.
    if (eps == 0 || n_ <= 1 || !(sum_ || prod_)) return 0.0L;
    const int e = who_.first + k - offset_;
    const ValueSlot& slot = slots_[s];
    long double mag = sum_ ? 0.0L : 1.0L;
    for (const Buffer& in : inputs_) {
      const std::byte* element = in.element(e);
      if (sum_) {
        mag += std::fabs(slot_value(element, slot));
      } else if (complex_[s]) {  // |z|: both components of the leaf
        ValueSlot re = slot, im = slot;
        re.offset -= slot.component * static_cast<std::ptrdiff_t>(scalar_size(re.scalar));
        im.offset = re.offset + static_cast<std::ptrdiff_t>(scalar_size(re.scalar));
        mag *= std::hypot(slot_value(element, re), slot_value(element, im));
      } else {
        mag *= std::fabs(slot_value(element, slot));
      }
    }
    // A complex product rounds up to twice per multiplication.
    const long double factor = prod_ && complex_[s] ? 4.0L : 2.0L;
    return factor * (n_ - 1) * eps * mag;
  }

 private:
  Datatype dt_;
  std::vector<ValueSlot> slots_;
  std::vector<long double> eps_;
  std::vector<bool> complex_;
  bool sum_ = false, prod_ = false;
  Contributors who_;
  int n_ = 0;
  int offset_ = 0;  // the element of the inputs that inputs_ begin at
  std::vector<Buffer> inputs_;
};

bool significant(const RankPlan& plan) {
  return plan.recv_significant && plan.result_defined && plan.recv_expected;
}

}  // namespace

std::vector<std::vector<long double>> error_bound(const Case& c, const Topology& t, Role me,
                                                  const RankPlan& plan) {
  std::vector<std::vector<long double>> bound;
  if (!significant(plan)) return bound;
  const Bounds b(c, t, me, plan);
  bound.assign(static_cast<std::size_t>(plan.recv_compare_elements),
               std::vector<long double>(b.slots(), 0.0L));
  for (int k = 0; k < plan.recv_compare_elements; ++k)
    for (std::size_t s = 0; s < b.slots(); ++s) bound[static_cast<std::size_t>(k)][s] = b.at(k, s);
  return bound;
}

std::optional<BoundViolation> first_outside_error_bound(const Case& c, const Topology& t, Role me,
                                                        const RankPlan& plan,
                                                        const Buffer& expected,
                                                        const Buffer& observed) {
  if (!significant(plan)) return std::nullopt;
  const Bounds b(c, t, me, plan);
  const std::vector<ValueSlot> slots = value_slots(expected.type());
  const std::size_t n = std::min(slots.size(), b.slots());
  for (int e = 0; e < plan.recv_compare_elements; ++e)
    for (std::size_t s = 0; s < n; ++s) {
      const long double bound = b.at(e, s);
      const long double ev = slot_value(expected.element(e), slots[s]);
      const long double ov = slot_value(observed.element(e), slots[s]);
      if (!(std::fabs(ov - ev) <= bound)) return BoundViolation{e, slots[s], ev, ov, bound};
    }
  return std::nullopt;
}

std::optional<BoundViolation> first_outside_bound(
    const std::vector<std::vector<long double>>& bound, const Buffer& expected,
    const Buffer& observed) {
  const std::vector<ValueSlot> slots = value_slots(expected.type());
  for (std::size_t k = 0; k < bound.size(); ++k) {
    const int e = static_cast<int>(k);
    for (std::size_t s = 0; s < slots.size() && s < bound[k].size(); ++s) {
      const long double ev = slot_value(expected.element(e), slots[s]);
      const long double ov = slot_value(observed.element(e), slots[s]);
      if (!(std::fabs(ov - ev) <= bound[k][s]))
        return BoundViolation{e, slots[s], ev, ov, bound[k][s]};
    }
  }
  return std::nullopt;
}

}  // namespace ordo::ref
