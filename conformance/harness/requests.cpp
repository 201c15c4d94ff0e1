// The requests of a case beyond its one call (requests.h).
#include "requests.h"

#include "judgement.h"
#include "messages.h"
#include "mpi_types.h"

namespace ordo::harness {

CallState::~CallState() {
  if (kept != MPI_REQUEST_NULL) {
    PhaseTimer timer(Phase::call);  // the library's
    MPI_Request_free(&kept);
  }
}

std::uint64_t start_seed(std::uint64_t seed, int start) {
  return start == 0 ? seed : seed * 1000003ull + 7919ull * static_cast<std::uint64_t>(start);
}

std::optional<LocalVerdict> restart(const ref::Case& c, const ZooComm& z, int start,
                                    CallState* st) {
  ref::Case next = c;
  next.seed = start_seed(c.seed, start);
  Planned planned = [&] {
    PhaseTimer timer(Phase::reference);
    return plan_case(next, z);
  }();
  const ref::RankPlan& plan = planned.plan;
  // Each step in its phase, as the first start's are (a restart's call is the
  // library's, not time outside the cases' phases).
  std::optional<PhaseTimer> phase(std::in_place, Phase::buffers);
  if (st->send && plan.send) st->send->refill(*plan.send);
  if (st->recv && plan.recv_initial) st->recv->refill(*plan.recv_initial);
  const std::vector<std::byte> send_before = st->send ? st->send->raw() : std::vector<std::byte>{};
  const std::string what =
      "start " + std::to_string(start + 1) + " of " + std::to_string(kPersistentStarts) +
      " of the persistent request, with new input (seed " + std::to_string(next.seed) + "): ";
  complete_by_test(c.concurrency == "test");
  phase.emplace(Phase::call);
  int rc = MPI_Start(&st->kept);
  if (rc == MPI_SUCCESS) rc = complete(&st->kept);
  phase.reset();
  if (rc != MPI_SUCCESS)
    return fail(what + "MPI_Start/MPI_Wait returned " + error_string(rc) + " (" + where(z) + ")");
  with_expected(&planned, next, z, st->recv);  // times itself
  phase.emplace(Phase::check);
  if (auto bad = judge_call(next, z, plan, st->send, send_before, st->send_origin, st->arg,
                            st->recv, nullptr)) {
    bad->message = what + bad->message;
    return bad;
  }
  return std::nullopt;
}

int call_outstanding(const ref::Case& c, const ZooComm& z, const ref::Datatype& dt,
                     bool in_place_here, const CallHandles& h, MPI_Request* pending,
                     OutstandingCalls* others) {
  for (int i = 1; i < kOutstanding; ++i) {
    OutstandingCall& o = others->emplace_back();
    o.c = c;
    o.c.seed = start_seed(c.seed, i);
    o.planned = plan_case(o.c, z);  // inside the call's time, as the call's own plan was
    const ref::RankPlan& plan = o.planned.plan;
    if (plan.send) {
      o.send.emplace(*plan.send);
      o.send_origin = plan.send->origin();
    } else if (!in_place_here && !c.null_insignificant) {
      o.dummy_send = ref::make_input(o.c, dt, plan.send_count, z.role.group, z.role.rank);
      o.send.emplace(*o.dummy_send);
      o.send_origin = o.dummy_send->origin();
    }
    if ((plan.recv_significant || !c.null_insignificant) && plan.recv_initial)
      o.recv.emplace(*plan.recv_initial);
    else if (!c.null_insignificant)
      o.recv.emplace(ref::make_recv_initial(o.c, dt, plan.recv_count, z.role.group, z.role.rank));
    if (o.send) o.send_before = o.send->raw();
    const void* osb = o.send ? o.send->ptr() : (in_place_here ? MPI_IN_PLACE : nullptr);
    void* orb = o.recv ? o.recv->ptr() : nullptr;
    o.rc = invoke(Args{o.c, z, plan, h.dt, h.op, osb, orb, nullptr, nullptr, &o.req, &o.arrays});
  }
  for (auto it = others->rbegin(); it != others->rend(); ++it)
    if (it->rc == MPI_SUCCESS) it->rc = complete(&it->req);
  return complete(pending);
}

void expect_outstanding(const ZooComm& z, OutstandingCalls* others) {
  for (OutstandingCall& o : *others)
    if (o.rc == MPI_SUCCESS) with_expected(&o.planned, o.c, z, o.recv);
}

std::optional<LocalVerdict> judge_outstanding(const OutstandingCalls& others,
                                              const std::string& routine, const ZooComm& z) {
  int n = 1;
  for (const OutstandingCall& o : others) {
    const std::string what = "outstanding call " + std::to_string(++n) + " of " +
                             std::to_string(kOutstanding) + " (started while the others were " +
                             "pending, seed " + std::to_string(o.c.seed) + "): ";
    if (o.rc != MPI_SUCCESS)
      return fail(what + routine + " or its completion returned " + error_string(o.rc) + " (" +
                  where(z) + ")");
    static const std::optional<GuardedBuffer> no_arg;
    if (auto bad = judge_call(o.c, z, o.planned.plan, o.send, o.send_before, o.send_origin, no_arg,
                              o.recv, nullptr)) {
      bad->message = what + bad->message;
      return bad;
    }
  }
  return std::nullopt;
}

std::optional<LocalVerdict> fresh_handles(const ref::Case& c, const ref::Datatype& dt,
                                          const ZooComm& z, CallHandles* h, MPI_Datatype* call_dt,
                                          MPI_Op* call_op) {
  *call_dt = h->dt;
  *call_op = h->op;
  if (!dt.predefined()) {
    *call_dt = mpi_datatype_fresh(dt, &h->why, &h->constructor_failed);
    if (*call_dt == MPI_DATATYPE_NULL) return fail(h->why + " (" + where(z) + ")");
  }
  if (const MPI_Op fresh = mpi_op_fresh(c.op, &h->op_error, c.binding); fresh != MPI_OP_NULL)
    *call_op = fresh;
  else if (!h->op_error.empty())
    return fail(h->op_error + " (" + where(z) + ")");
  return std::nullopt;
}

int free_while_pending(const ref::Datatype& dt, const CallHandles& h, MPI_Datatype call_dt,
                       MPI_Op call_op, int rc, MPI_Request* pending, std::string* error) {
  if (call_op != h.op) {
    const int frc = MPI_Op_free(&call_op);
    if (frc != MPI_SUCCESS)
      *error = "MPI_Op_free of the pending call's op returned " + error_string(frc);
  }
  MPI_Datatype freed_dt = call_dt;
  if (call_dt != h.dt && !must_not_free(dt, call_dt)) {
    const int frc = MPI_Type_free(&freed_dt);
    if (frc != MPI_SUCCESS && error->empty())
      *error = "MPI_Type_free of the pending call's datatype returned " + error_string(frc);
  }
  if (rc == MPI_SUCCESS) rc = complete(pending);
  if (call_dt != h.dt) forget_datatype(call_dt);
  return rc;
}

}  // namespace ordo::harness
