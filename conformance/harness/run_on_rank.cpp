// One case on this rank (run_on_rank.h): planned, its buffers made, called
// in its concurrency, judged; a persistent request started again; a huge
// case planned and judged a range at a time (by_ranges.h).
#include "run_on_rank.h"

#include <optional>
#include <vector>

#include "by_ranges.h"
#include "erroneous_args.h"
#include "judgement.h"
#include "messages.h"
#include "mpi_dispatch.h"
#include "mpi_types.h"
#include "ordo/reference/errors.h"
#include "planning.h"
#include "requests.h"

namespace ordo::harness {
namespace {

using ref::Routine;
using S = LocalVerdict::Status;

// The reference's part before the call: the case checked (a DETECT case
// must be erroneous; its concurrency must be one the routine has) and
// planned at this rank, *dt the datatype of this rank's buffers; the
// verdict when it cannot be.
std::optional<LocalVerdict> plan_call(const ref::Case& c, const ZooComm& z, bool erroneous,
                                      Planned* planned, ref::Datatype* dt) {
  try {
    *dt = ref::Datatype::parse(c.datatype);
    if (erroneous) {
      try {
        ref::validate_case(c, z.topology);
        return fail("ordo: this DETECT case is not erroneous: " + c.describe());
      } catch (const ref::SemanticsError&) {
      }
    }
    if (erroneous)
      planned->plan = ref::plan(c, z.topology, z.role, true);
    else
      *planned = plan_case(c, z);
    *dt = ref::Datatype::parse(planned->plan.datatype);
  } catch (const std::exception& e) {
    return fail(std::string("ordo: the case is not valid: ") + e.what());
  }
  if (const std::string conflict = ref::concurrency_conflict(c); !conflict.empty())
    return fail("ordo: the case is not valid: " + conflict);
  return std::nullopt;
}

// What the call is passed for its buffers, and what its judgement needs of
// them.
struct CallBuffers {
  // A valid send buffer where none is significant: the call must not touch it.
  std::optional<ref::Buffer> dummy_send;
  bool in_place_here = false;  // MPI_IN_PLACE passed as the send buffer
  std::vector<std::byte> send_before;
  std::ptrdiff_t send_origin = 0;
  const void* sb = nullptr;
  void* rb = nullptr;
  const void* ab = nullptr;
};

// The case's buffers, made in *st (they outlive the judgement) from the
// plan, and the pointers as the case passes them (MPI_IN_PLACE, aliases).
CallBuffers make_buffers(const ref::Case& c, const ZooComm& z, const ref::RankPlan& plan,
                         const ref::Datatype& dt, CallState* st) {
  CallBuffers b;
  std::optional<GuardedBuffer>&send = st->send, &recv = st->recv, &arg = st->arg;
  const bool local = c.routine == Routine::reduce_local || c.routine == Routine::reduce_locals;
  // Reduce_local with MPI_IN_PLACE (erroneous: DETECT) passes it as inbuf;
  // Reduce_locals with in_place passes it as inoutbuf (below).
  b.in_place_here =
      c.in_place && (c.routine == Routine::reduce_local || (!local && !plan.send_significant));
  if (plan.send && !(c.routine == Routine::reduce_local && c.in_place)) {
    send.emplace(*plan.send);
  } else if (!b.in_place_here && !c.null_insignificant) {
    b.dummy_send = ref::make_input(c, dt, plan.send_count, z.role.group, z.role.rank);
    send.emplace(*b.dummy_send);
  }
  if ((plan.recv_significant || !c.null_insignificant) && plan.recv_initial)
    recv.emplace(*plan.recv_initial);
  else if (!c.null_insignificant)
    recv.emplace(ref::make_recv_initial(c, dt, plan.recv_count, z.role.group, z.role.rank));
  if (plan.arg) arg.emplace(*plan.arg);
  if (send) b.send_before = send->raw();
  b.send_origin = st->send_origin =
      plan.send ? plan.send->origin() : (b.dummy_send ? b.dummy_send->origin() : 0);

  b.rb = recv ? recv->ptr() : nullptr;
  b.sb = send ? send->ptr() : (b.in_place_here ? MPI_IN_PLACE : nullptr);
  b.ab = arg ? arg->ptr() : nullptr;
  if (c.routine == Routine::reduce_locals) {
    if (c.locals_in_is_in_place) b.sb = MPI_IN_PLACE;
    b.ab = c.locals_arg_is_in_place ? MPI_IN_PLACE : (c.locals_arg_is_in ? b.sb : b.ab);
    if (c.locals_arg_is_in && c.locals_in_is_in_place) b.ab = MPI_IN_PLACE;
  }
  if (c.alias_send_recv) {
    b.sb = b.rb;  // erroneous on purpose (DETECT)
    if (c.routine == Routine::reduce_locals && c.locals_arg_is_in) b.ab = b.rb;
  }
  if (c.routine == Routine::reduce_locals && c.in_place) b.rb = static_cast<void*>(MPI_IN_PLACE);
  return b;
}

// What the call, with the other calls of its concurrency, gave.
struct CallResult {
  int rc = MPI_SUCCESS;
  std::string concurrency_error;  // a handle of the freed concurrency not freed
  OutstandingCalls others;
};

// The call in the case's concurrency, made from the first call into *r (the
// caller times it); the verdict when the freed concurrency's handles cannot
// be made.
std::optional<LocalVerdict> call(const ref::Case& c, const CaseOptions& options, const ZooComm& z,
                                 const ref::Datatype& dt, const ref::RankPlan& plan, CallHandles* h,
                                 const CallBuffers& b, CallState* st, CallResult* r) {
  const bool erroneous = current_level() == Level::DETECT;
  const bool local = c.routine == Routine::reduce_local || c.routine == Routine::reduce_locals;
  // A persistent request is kept for its next starts (run_on_rank); not in a
  // DETECT case, nor for a benchmark's bare call.
  const bool keep = c.mode == ref::Mode::persistent && !erroneous && !options.bare_call && !local &&
                    c.erroneous.empty();
  complete_by_test(c.concurrency == "test");
  const bool outstanding = c.concurrency == "outstanding" && !erroneous && !options.bare_call;
  const bool freed = c.concurrency == "freed" && !erroneous && !options.bare_call;
  MPI_Datatype call_dt = h->dt;
  MPI_Op call_op = h->op;
  if (freed)
    if (auto bad = fresh_handles(c, dt, z, h, &call_dt, &call_op)) return bad;
  MPI_Request pending = MPI_REQUEST_NULL;
  r->rc = invoke(Args{c, z, plan, call_dt, call_op, b.sb, b.rb, b.ab, keep ? &st->kept : nullptr,
                      outstanding || freed ? &pending : nullptr, &st->arrays});
  if (freed)
    r->rc = free_while_pending(dt, *h, call_dt, call_op, r->rc, &pending, &r->concurrency_error);
  if (outstanding && r->rc == MPI_SUCCESS)
    r->rc = call_outstanding(c, z, dt, b.in_place_here, *h, &pending, &r->others);
  return std::nullopt;
}

// SHOULD: the same call again on every rank, from fresh copies of the buffers.
struct Repeated {
  std::optional<GuardedBuffer> send, recv;
  int rc = MPI_SUCCESS;
};

void call_again(const ref::Case& c, const ZooComm& z, const ref::RankPlan& plan,
                const CallHandles& h, const CallBuffers& b, const CallState& st, Repeated* again) {
  if (st.send) again->send.emplace(plan.send ? *plan.send : *b.dummy_send);
  if (st.recv) again->recv.emplace(*plan.recv_initial);
  again->rc = invoke(Args{c, z, plan, h.dt, h.op, again->send ? again->send->ptr() : b.sb,
                          again->recv ? again->recv->ptr() : b.rb, b.ab});
}

// The verdict on the first call: at DETECT whether the library reported the
// error; else its code, the datatype its user functions saw, its result
// against the reference, and as the case asks, the other outstanding calls'
// results, the handles freed, the repeated call's result, the check's own
// judgement. *phase: the check phase, paused while with_expected() times
// itself (the digest as checking, a full plan as the reference), so no
// second is counted twice.
LocalVerdict judge_first_call(const ref::Case& c, const CaseOptions& options, const ZooComm& z,
                              Planned* planned, const CallState& st, const CallBuffers& b,
                              CallResult* r, const Repeated& again,
                              std::optional<PhaseTimer>* phase, std::string* observed) {
  const ref::RankPlan& plan = planned->plan;
  const std::string routine(ref::mpi_routine_name(c.routine, c.mode));
  if (current_level() == Level::DETECT) {
    if (r->rc != MPI_SUCCESS && options.detect_class >= 0) {
      int cls = -1;
      MPI_Error_class(r->rc, &cls);
      if (cls != options.detect_class)
        return {S::fail,
                routine + " returned " + error_string(r->rc) + ", not " +
                    error_string(options.detect_class) + " (" + where(z) + ")",
                "reported"};
    }
    if (r->rc != MPI_SUCCESS)
      return {S::pass, routine + " returned " + error_string(r->rc), "reported"};
    return {S::pass, "", "accepted"};
  }
  if (r->rc != MPI_SUCCESS) return fail(returned(routine, r->rc, z));
  if (unknown_datatype_calls() > 0) return fail(other_datatype_handle(routine, z));
  phase->reset();
  with_expected(planned, c, z, st.recv);
  expect_outstanding(z, &r->others);
  phase->emplace(Phase::check);
  if (auto bad = judge_call(c, z, plan, st.send, b.send_before, b.send_origin, st.arg, st.recv,
                            observed)) {
    if (c.concurrency == "outstanding")
      bad->message =
          "the first of " + std::to_string(kOutstanding) + " outstanding calls: " + bad->message;
    return std::move(*bad);
  }
  if (!r->concurrency_error.empty()) return fail(r->concurrency_error + " (" + where(z) + ")");
  if (auto bad = judge_outstanding(r->others, routine, z)) return std::move(*bad);
  if (st.recv && plan.recv_significant && plan.result_defined && plan.recv_expected &&
      options.repeat) {
    const ref::Buffer& expected = *plan.recv_expected;
    const ref::Buffer repeated = again.recv->contents(expected);
    if (again.rc != MPI_SUCCESS ||
        ref::value_bytes(repeated) != ref::value_bytes(st.recv->contents(expected)))
      return fail("the same call repeated with the same arguments gave a different result (" +
                  where(z) + ")");
  }
  if (options.extra) return options.extra(CaseContext{c, z, plan, st.recv});
  return {};
}

// The case's call (for a persistent case: its first start), judged.
RankResult first_call(const ref::Case& c, const CaseOptions& options, const ZooComm& z,
                      CallState* st) {
  RankResult out;
  Planned planned;
  const ref::RankPlan& plan = planned.plan;
  ref::Datatype dt = ref::Datatype::basic(ref::Basic::INT);
  std::optional<PhaseTimer> phase(std::in_place, Phase::reference);
  if (auto bad = plan_call(c, z, current_level() == Level::DETECT, &planned, &dt)) {
    out.verdict = std::move(*bad);
    return out;
  }
  phase.emplace(Phase::buffers);
  CallHandles h;
  if (auto bad = make_handles(c, dt, z, &h)) {
    out.verdict = std::move(*bad);
    return out;
  }
  // DETECT: the erroneous handle the case names, if any (ordo/reference/case.h).
  const ErroneousHandles erroneous_handles(c, &h.dt, &h.op);
  if (!erroneous_handles.error().empty()) {
    out.verdict = fail(erroneous_handles.error());
    return out;
  }
  const CallBuffers b = make_buffers(c, z, plan, dt, st);

  reset_unknown_datatype_calls();
  reset_recorded_calls();
  phase.reset();
  const double t0 = MPI_Wtime();
  CallResult r;
  if (auto bad = call(c, options, z, dt, plan, &h, b, st, &r)) {
    out.verdict = std::move(*bad);
    return out;
  }
  out.seconds = MPI_Wtime() - t0;
  if (options.bare_call) return out;
  add_phase_time(Phase::call, out.seconds);
  phase.emplace(Phase::check);
  Repeated again;
  if (options.repeat && r.rc == MPI_SUCCESS) call_again(c, z, plan, h, b, *st, &again);
  out.verdict = judge_first_call(c, options, z, &planned, *st, b, &r, again, &phase, &out.observed);
  return out;
}

}  // namespace

RankResult run_on_rank(const ref::Case& c, const CaseOptions& options, const ZooComm& z) {
  if (planned_by_ranges(c, options, z)) return call_by_ranges(c, options, z);
  CallState st;
  RankResult out = first_call(c, options, z, &st);
  // Every rank that kept the request starts it again, whatever its first
  // start's verdict: the starts are collective.
  for (int start = 1; st.kept != MPI_REQUEST_NULL && start < kPersistentStarts; ++start) {
    std::optional<LocalVerdict> bad = restart(c, z, start, &st);
    if (bad && out.verdict.status != S::fail) out.verdict = std::move(*bad);
  }
  return out;
}

}  // namespace ordo::harness
