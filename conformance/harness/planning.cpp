// A case's plan at this rank (planning.h).
#include "planning.h"

#include "harness.h"

namespace ordo::harness {
namespace {

// A case and plan whose expected result is judged byte for byte in full: an
// exact case (an inexact one is judged within an error bound, and the
// library's order of evaluation gives other bits), the receive buffer
// significant, the result defined, and every element of it compared.
bool compared_in_full(const ref::Case& c, const ref::RankPlan& plan) {
  return c.exact && plan.recv_significant && plan.result_defined && plan.recv_initial &&
         plan.recv_compare_elements == plan.recv_initial->count();
}

}  // namespace

Planned plan_case(const ref::Case& c, const ZooComm& z) {
  Planned p;
  std::optional<expect_cache::Digest> key;
  if (expect_cache::enabled() && c.exact) {
    key = expect_cache::key(c, z.topology, z.role);
    p.cached = expect_cache::get(*key);
  }
  if (p.cached) {
    p.plan = ref::plan_buffers(c, z.topology, z.role);
    if (compared_in_full(c, p.plan)) return p;
    p.cached.reset();  // not an entry this harness keeps: planned in full
  }
  if (shared_folds::enabled() && ref::folds_shareable(c, z.topology)) {
    p.plan = ref::plan_buffers(c, z.topology, z.role);
    p.folds = shared_folds::begin(c, z.topology);
    if (p.folds) {
      p.key = key;
      return p;
    }
  }
  p.plan = ref::plan(c, z.topology, z.role, false);
  if (key && p.plan.recv_expected && compared_in_full(c, p.plan))
    expect_cache::put(*key, expect_cache::digest(*p.plan.recv_expected));
  return p;
}

void with_expected(Planned* p, const ref::Case& c, const ZooComm& z,
                   const std::optional<GuardedBuffer>& recv) {
  if (p->folds) {
    PhaseTimer timer(Phase::reference);
    const ref::Buffer none(ref::Datatype::parse(c.datatype), 0);  // a rank without a result
    p->plan.recv_expected = shared_folds::finish(
        *p->folds, c, z.topology, z.role, p->plan.recv_initial ? *p->plan.recv_initial : none);
    p->folds.reset();
    if (p->key && p->plan.recv_expected && compared_in_full(c, p->plan))
      expect_cache::put(*p->key, expect_cache::digest(*p->plan.recv_expected));
    return;
  }
  if (!p->cached || p->plan.recv_expected) return;
  if (recv) {
    PhaseTimer timer(Phase::check);
    const ref::Buffer& shape = *p->plan.recv_initial;
    const std::size_t n = shape.storage().size();
    // The library's bytes read in place (what contents() would copy).
    if (n <= recv->size() &&
        expect_cache::digest(shape, recv->raw().data() + GuardedBuffer::kGuard, n) == *p->cached) {
      p->plan.recv_expected = recv->contents(shape);
      expect_cache::count_hit();
      return;
    }
  }
  expect_cache::count_mismatch();
  PhaseTimer timer(Phase::reference);
  p->plan.recv_expected = ref::plan(c, z.topology, z.role, false).recv_expected;
}

}  // namespace ordo::harness
