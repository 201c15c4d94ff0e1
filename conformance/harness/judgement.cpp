// The judgement of one completed call on this rank (judgement.h).
#include "judgement.h"

#include "messages.h"
#include "ordo/reference/error_bound.h"

namespace ordo::harness {
namespace {

// Inexact floating-point inputs: each value within the reference's error
// bound (ref::error_bound: per routine, Scan and Exscan by their prefix
// length, every leaf of the datatype counted).
std::optional<std::string> within_error_bound(const ref::Case& c, const ZooComm& z,
                                              const ref::RankPlan& plan,
                                              const ref::Buffer& expected,
                                              const ref::Buffer& observed) {
  const auto bad = ref::first_outside_error_bound(c, z.topology, z.role, plan, expected, observed);
  if (!bad) return std::nullopt;
  return describe_outside_bound(*bad);
}

}  // namespace

std::optional<LocalVerdict> judge_call(
    const ref::Case& c, const ZooComm& z, const ref::RankPlan& plan,
    const std::optional<GuardedBuffer>& send, const std::vector<std::byte>& send_before,
    std::ptrdiff_t send_origin, const std::optional<GuardedBuffer>& arg,
    const std::optional<GuardedBuffer>& recv, std::string* observed_bytes) {
  if (send && send->raw() != send_before) {
    std::size_t i = 0;
    while (send->raw()[i] == send_before[i]) ++i;
    return fail(send_buffer_modified(static_cast<long>(i) -
                                         static_cast<long>(GuardedBuffer::kGuard) -
                                         static_cast<long>(send_origin),
                                     z));
  }
  if (arg && !arg->guards_intact())
    return fail("bytes around argbuf were written (" + where(z) + ")");
  if (recv && !recv->guards_intact()) return fail(recv_guards_written(z));
  if (recv && plan.recv_significant && plan.result_defined && plan.recv_expected) {
    ref::Buffer observed = recv->contents(*plan.recv_expected);
    const int m = plan.recv_compare_elements;
    // Elements past the first m are not compared: a copy of the expected
    // result takes the library's there (only then is it copied).
    std::optional<ref::Buffer> with_tail;
    if (m < plan.recv_expected->count()) {
      with_tail = *plan.recv_expected;
      ref::copy_elements(observed, m, *with_tail, m, with_tail->count() - m);
    }
    const ref::Buffer& expected = with_tail ? *with_tail : *plan.recv_expected;
    if (c.exact) {
      const ref::Difference d = ref::first_difference(expected, observed);
      if (d.any) {
        std::string tracer;
        LocalVerdict v =
            fail(describe_difference(c, d, expected, observed, z, &tracer) + " (" + where(z) + ")");
        v.tracer = std::move(tracer);
        return v;
      }
    } else {
      if (auto bad = within_error_bound(c, z, plan, expected, observed))
        return fail(*bad + " (" + where(z) + ")");
      if (c.routine == ref::Routine::allreduce && observed_bytes)
        *observed_bytes = ref::value_bytes(observed);
    }
  }
  return std::nullopt;
}

}  // namespace ordo::harness
