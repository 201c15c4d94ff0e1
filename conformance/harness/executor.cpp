#include "executor.h"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <limits>
#include <map>
#include <sstream>
#include <unordered_map>

#include "erroneous_args.h"
#include "expect_cache.h"
#include "fortran_layer.h"
#include "mpi_types.h"
#include "mpix_reduce_locals_portable.h"
#include "ordo/reference/error_bound.h"
#include "ordo/reference/errors.h"
#include "ordo/reference/witness.h"
#include "record.h"
#include "shared_folds.h"

namespace ordo::harness {
namespace {

using ref::Routine;
using S = LocalVerdict::Status;

LocalVerdict fail(std::string m) { return {S::fail, std::move(m), ""}; }

using ReduceLocalsFn = int (*)(const void*, const void*, void*, int, MPI_Datatype, MPI_Op);

// The library's own MPIX_Reduce_locals when it has one, else ordo's portable one.
ReduceLocalsFn reduce_locals_impl() {
  static ReduceLocalsFn f = [] {
    void* sym = library_has_reduce_locals() ? dlsym(RTLD_DEFAULT, "MPIX_Reduce_locals") : nullptr;
    return sym ? reinterpret_cast<ReduceLocalsFn>(sym) : &ordo_portable_reduce_locals;
  }();
  return f;
}

struct Args {
  const ref::Case& c;
  const ZooComm& z;
  const ref::RankPlan& plan;
  MPI_Datatype dt;
  MPI_Op op;
  const void* send;
  void* recv;
  const void* arg;
  // A persistent request is not freed after its first start but handed
  // here, for the next starts (run_on_rank); null: freed at once.
  MPI_Request* keep = nullptr;
  // A nonblocking call's request is handed here instead of being completed
  // (the outstanding and freed concurrency); null: completed at once.
  MPI_Request* pending = nullptr;
};

// Completion of the running case's requests: MPI_Wait, or with the "test"
// concurrency a loop of MPI_Test (the case watchdog bounds a library whose
// tests never complete it).
bool g_complete_by_test = false;
int complete(MPI_Request* req) {
  if (!g_complete_by_test) return MPI_Wait(req, MPI_STATUS_IGNORE);
  for (;;) {
    int flag = 0;
    const int rc = MPI_Test(req, &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS || flag) return rc;
  }
}

int mpi_root(const ref::Case& c, const ZooComm& z, const ref::RankPlan& p) {
  using RR = ref::RankPlan::RootRole;
  if (z.topology.inter) {
    if (p.root_role == RR::root) return MPI_ROOT;
    if (p.root_role == RR::other_in_root_group) return MPI_PROC_NULL;
  }
  return c.root;
}

// The receive counts this rank passes to Reduce_scatter (its own group's).
std::vector<int> scatter_counts(const ref::Case& c, const ZooComm& z) {
  const std::vector<int> rc = ref::effective_recvcounts(c, z.topology);
  if (!z.topology.inter) return rc;
  const auto lo = static_cast<std::ptrdiff_t>(z.topology.size_low);
  return z.role.group == 0 ? std::vector<int>(rc.begin(), rc.begin() + lo)
                           : std::vector<int>(rc.begin() + lo, rc.end());
}

#ifdef ORDO_HAVE_PERSISTENT_COLLECTIVES
// A persistent request just initialised (rc its init's return): started
// and completed, then freed or, when keep is given, kept there for more starts.
int start_and_free(int rc, MPI_Request* req, MPI_Request* keep) {
  if (rc != MPI_SUCCESS) return rc;
  rc = MPI_Start(req);
  if (rc == MPI_SUCCESS) rc = complete(req);
  if (keep && rc == MPI_SUCCESS)
    *keep = *req;
  else
    MPI_Request_free(req);
  return rc;
}
#endif

#ifdef ORDO_HAVE_LARGE_COUNT
int invoke_large_count(const Args& k, int root, const std::vector<int>& counts, int block) {
  const ref::Case& c = k.c;
  MPI_Comm comm = k.z.comm;
  const MPI_Count n = c.count;
  std::vector<MPI_Count> cc(counts.begin(), counts.end());
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = MPI_SUCCESS;
  if (c.mode == ref::Mode::blocking) {
    switch (c.routine) {
      case Routine::reduce:
        return MPI_Reduce_c(k.send, k.recv, n, k.dt, k.op, root, comm);
      case Routine::allreduce:
        return MPI_Allreduce_c(k.send, k.recv, n, k.dt, k.op, comm);
      case Routine::reduce_scatter:
        return MPI_Reduce_scatter_c(k.send, k.recv, cc.data(), k.dt, k.op, comm);
      case Routine::reduce_scatter_block:
        return MPI_Reduce_scatter_block_c(k.send, k.recv, block, k.dt, k.op, comm);
      case Routine::scan:
        return MPI_Scan_c(k.send, k.recv, n, k.dt, k.op, comm);
      case Routine::exscan:
        return MPI_Exscan_c(k.send, k.recv, n, k.dt, k.op, comm);
      case Routine::reduce_local:
        return MPI_Reduce_local_c(k.send, k.recv, n, k.dt, k.op);
      default:
        return MPI_ERR_OTHER;
    }
  }
#ifdef ORDO_HAVE_PERSISTENT_COLLECTIVES
  if (c.mode == ref::Mode::persistent) {
    switch (c.routine) {
      case Routine::reduce:
        rc = MPI_Reduce_init_c(k.send, k.recv, n, k.dt, k.op, root, comm, MPI_INFO_NULL, &req);
        break;
      case Routine::allreduce:
        rc = MPI_Allreduce_init_c(k.send, k.recv, n, k.dt, k.op, comm, MPI_INFO_NULL, &req);
        break;
      case Routine::reduce_scatter:
        rc = MPI_Reduce_scatter_init_c(k.send, k.recv, cc.data(), k.dt, k.op, comm, MPI_INFO_NULL,
                                       &req);
        break;
      case Routine::reduce_scatter_block:
        rc = MPI_Reduce_scatter_block_init_c(k.send, k.recv, block, k.dt, k.op, comm, MPI_INFO_NULL,
                                             &req);
        break;
      case Routine::scan:
        rc = MPI_Scan_init_c(k.send, k.recv, n, k.dt, k.op, comm, MPI_INFO_NULL, &req);
        break;
      case Routine::exscan:
        rc = MPI_Exscan_init_c(k.send, k.recv, n, k.dt, k.op, comm, MPI_INFO_NULL, &req);
        break;
      default:
        return MPI_ERR_OTHER;
    }
    return start_and_free(rc, &req, k.keep);
  }
#endif
  switch (c.routine) {
    case Routine::reduce:
      rc = MPI_Ireduce_c(k.send, k.recv, n, k.dt, k.op, root, comm, &req);
      break;
    case Routine::allreduce:
      rc = MPI_Iallreduce_c(k.send, k.recv, n, k.dt, k.op, comm, &req);
      break;
    case Routine::reduce_scatter:
      rc = MPI_Ireduce_scatter_c(k.send, k.recv, cc.data(), k.dt, k.op, comm, &req);
      break;
    case Routine::reduce_scatter_block:
      rc = MPI_Ireduce_scatter_block_c(k.send, k.recv, block, k.dt, k.op, comm, &req);
      break;
    case Routine::scan:
      rc = MPI_Iscan_c(k.send, k.recv, n, k.dt, k.op, comm, &req);
      break;
    case Routine::exscan:
      rc = MPI_Iexscan_c(k.send, k.recv, n, k.dt, k.op, comm, &req);
      break;
    default:
      return MPI_ERR_OTHER;
  }
  if (rc != MPI_SUCCESS) return rc;
  if (k.pending) {
    *k.pending = req;
    return MPI_SUCCESS;
  }
  return complete(&req);
}
#endif

#if defined(ORDO_HAVE_FORTRAN_F08) || defined(ORDO_HAVE_FORTRAN_F90)
// The call through the case's Fortran binding (fortran_layer.h): the handles
// as Fortran handles, MPI_IN_PLACE as the Fortran program's own; a request
// comes back as a Fortran handle and is completed (or kept, or left pending)
// as the C call's is.
int invoke_fortran(const Args& k, int count, const std::vector<int>& counts, int root) {
  const ref::Case& c = k.c;
  const int routine = static_cast<int>(c.routine), mode = static_cast<int>(c.mode);
  const int in_place = k.send == MPI_IN_PLACE ? 1 : 0;
  const void* send = in_place ? nullptr : k.send;
  const int ncounts = static_cast<int>(counts.size());
  MPI_Fint freq = MPI_Request_c2f(MPI_REQUEST_NULL);
  int rc = MPI_ERR_OTHER;
#ifdef ORDO_HAVE_FORTRAN_F08
  if (c.binding == "f08")
    rc = ordo_f08_call(routine, mode, c.large_count ? 1 : 0, send, k.recv, in_place, count,
                       counts.data(), ncounts, MPI_Type_c2f(k.dt), MPI_Op_c2f(k.op), root,
                       MPI_Comm_c2f(k.z.comm), &freq);
#endif
#ifdef ORDO_HAVE_FORTRAN_F90
  if (c.binding == "f90")
    rc = ordo_f90_call(routine, mode, send, k.recv, in_place, count, counts.data(), ncounts,
                       MPI_Type_c2f(k.dt), MPI_Op_c2f(k.op), root, MPI_Comm_c2f(k.z.comm), &freq);
#endif
  if (rc != MPI_SUCCESS || c.mode == ref::Mode::blocking || c.routine == Routine::reduce_local)
    return rc;
  MPI_Request req = MPI_Request_f2c(freq);
#ifdef ORDO_HAVE_PERSISTENT_COLLECTIVES
  if (c.mode == ref::Mode::persistent) return start_and_free(rc, &req, k.keep);
#endif
  if (k.pending) {
    *k.pending = req;
    return MPI_SUCCESS;
  }
  return complete(&req);
}
#endif

// Issues the call in the case's mode. Returns the MPI error code.
int invoke(const Args& k) {
  const ref::Case& c = k.c;
  MPI_Comm comm = k.z.comm;
  int count = c.count;
  std::vector<int> counts =
      c.routine == Routine::reduce_scatter ? scatter_counts(c, k.z) : std::vector<int>{};
  int block =
      c.routine == Routine::reduce_scatter_block && k.z.topology.inter
          ? ref::effective_recvcounts(c, k.z.topology)[static_cast<std::size_t>(k.z.role.group)]
          : c.count;
  int root = mpi_root(c, k.z, k.plan);
  if (!c.erroneous.empty()) erroneous_scalars(c, &count, &counts, &block, &root);  // DETECT
  if (c.routine == Routine::reduce_locals)
    return reduce_locals_impl()(k.send, k.arg, k.recv, count, k.dt, k.op);
#if defined(ORDO_HAVE_FORTRAN_F08) || defined(ORDO_HAVE_FORTRAN_F90)
  if (c.binding != "c")
    return invoke_fortran(k, c.routine == Routine::reduce_scatter_block ? block : count, counts,
                          root);
#endif
#ifdef ORDO_HAVE_LARGE_COUNT
  if (c.large_count) return invoke_large_count(k, root, counts, block);
#endif
  if (c.routine == Routine::reduce_local)
    return MPI_Reduce_local(k.send, k.recv, count, k.dt, k.op);
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = MPI_SUCCESS;
  if (c.mode == ref::Mode::blocking) {
    switch (c.routine) {
      case Routine::reduce:
        return MPI_Reduce(k.send, k.recv, count, k.dt, k.op, root, comm);
      case Routine::allreduce:
        return MPI_Allreduce(k.send, k.recv, count, k.dt, k.op, comm);
      case Routine::reduce_scatter:
        return MPI_Reduce_scatter(k.send, k.recv, counts.data(), k.dt, k.op, comm);
      case Routine::reduce_scatter_block:
        return MPI_Reduce_scatter_block(k.send, k.recv, block, k.dt, k.op, comm);
      case Routine::scan:
        return MPI_Scan(k.send, k.recv, count, k.dt, k.op, comm);
      case Routine::exscan:
        return MPI_Exscan(k.send, k.recv, count, k.dt, k.op, comm);
      default:
        return MPI_ERR_OTHER;
    }
  }
  if (c.mode == ref::Mode::nonblocking) {
    switch (c.routine) {
      case Routine::reduce:
        rc = MPI_Ireduce(k.send, k.recv, count, k.dt, k.op, root, comm, &req);
        break;
      case Routine::allreduce:
        rc = MPI_Iallreduce(k.send, k.recv, count, k.dt, k.op, comm, &req);
        break;
      case Routine::reduce_scatter:
        rc = MPI_Ireduce_scatter(k.send, k.recv, counts.data(), k.dt, k.op, comm, &req);
        break;
      case Routine::reduce_scatter_block:
        rc = MPI_Ireduce_scatter_block(k.send, k.recv, block, k.dt, k.op, comm, &req);
        break;
      case Routine::scan:
        rc = MPI_Iscan(k.send, k.recv, count, k.dt, k.op, comm, &req);
        break;
      case Routine::exscan:
        rc = MPI_Iexscan(k.send, k.recv, count, k.dt, k.op, comm, &req);
        break;
      default:
        return MPI_ERR_OTHER;
    }
    if (rc != MPI_SUCCESS) return rc;
    if (k.pending) {
      *k.pending = req;
      return MPI_SUCCESS;
    }
    return complete(&req);
  }
#ifdef ORDO_HAVE_PERSISTENT_COLLECTIVES
  switch (c.routine) {
    case Routine::reduce:
      rc = MPI_Reduce_init(k.send, k.recv, count, k.dt, k.op, root, comm, MPI_INFO_NULL, &req);
      break;
    case Routine::allreduce:
      rc = MPI_Allreduce_init(k.send, k.recv, count, k.dt, k.op, comm, MPI_INFO_NULL, &req);
      break;
    case Routine::reduce_scatter:
      rc = MPI_Reduce_scatter_init(k.send, k.recv, counts.data(), k.dt, k.op, comm, MPI_INFO_NULL,
                                   &req);
      break;
    case Routine::reduce_scatter_block:
      rc = MPI_Reduce_scatter_block_init(k.send, k.recv, block, k.dt, k.op, comm, MPI_INFO_NULL,
                                         &req);
      break;
    case Routine::scan:
      rc = MPI_Scan_init(k.send, k.recv, count, k.dt, k.op, comm, MPI_INFO_NULL, &req);
      break;
    case Routine::exscan:
      rc = MPI_Exscan_init(k.send, k.recv, count, k.dt, k.op, comm, MPI_INFO_NULL, &req);
      break;
    default:
      return MPI_ERR_OTHER;
  }
  return start_and_free(rc, &req, k.keep);
#else
  return MPI_ERR_OTHER;  // unreachable: missing_feature() skips the case
#endif
}

std::string where(const ZooComm& z) {
  std::ostringstream o;
  if (z.topology.inter)
    o << (z.role.group == 0 ? "low" : "high") << " group rank " << z.role.rank << " of "
      << (z.role.group == 0 ? z.topology.size_low : z.topology.size_high);
  else
    o << "comm rank " << z.role.rank << " of " << z.topology.size_low;
  return o.str();
}

// The tracer's explanation as the record's data: what the cell says, the
// element, and where this rank sits (as where() writes it).
std::string tracer_item(const ref::witness::Trace& t, int element, const ZooComm& z) {
  Json item;
  item["kind"] = ref::witness::trace_kind_name(t.kind);
  const bool combine = t.kind != ref::witness::Trace::Kind::in_order &&
                       t.kind != ref::witness::Trace::Kind::wrong_cover;
  if (combine) {
    item["invec"] = {t.invec[0], t.invec[1]};
    item["inoutvec"] = {t.inoutvec[0], t.inoutvec[1]};
    item["why"] = ref::witness::trace_why(t.kind);
  } else {
    item["covers"] = {t.covers[0], t.covers[1]};
  }
  item["expected"] = {t.expected[0], t.expected[1]};
  item["element"] = element;
  item["group"] = z.topology.inter ? Json(z.role.group == 0 ? "low" : "high") : Json(nullptr);
  item["rank"] = z.role.rank;
  item["size"] = z.topology.inter && z.role.group != 0 ? z.topology.size_high : z.topology.size_low;
  return item.dump();
}

// What differs, in words; a witness.tracer case also names the first wrong
// combine, and its explanation goes to *tracer as data.
std::string describe_difference(const ref::Case& c, const ref::Difference& d,
                                const ref::Buffer& expected, const ref::Buffer& observed,
                                const ZooComm& z, std::string* tracer) {
  std::ostringstream o;
  if (d.in_hole) {
    o << "a hole of the receive datatype was written at byte " << d.byte << ": expected untouched "
      << d.expected << ", observed " << d.observed;
    return o.str();
  }
  o << "element " << d.element << " (leaf " << d.leaf << ", byte " << d.byte << "): expected "
    << d.expected << ", observed " << d.observed;
  if (ref::witness::is_tracer(c.op)) {
    const auto cells = ref::witness::read_cells(observed.element(d.element), observed.type());
    const auto want = ref::witness::read_cells(expected.element(d.element), expected.type());
    const std::size_t cell = static_cast<std::size_t>(d.leaf) / 4;
    if (cell < cells.size()) {
      const ref::witness::Trace t =
          ref::witness::trace(cells[cell], want[cell].v[0], want[cell].v[1]);
      o << "; tracer: " << ref::witness::explain(t);
      *tracer = tracer_item(t, static_cast<int>(d.element), z);
    }
  }
  if (c.op == "witness.multiset") {
    const auto cells = ref::witness::read_cells(observed.element(d.element), observed.type());
    const auto want = ref::witness::read_cells(expected.element(d.element), expected.type());
    const std::size_t cell = static_cast<std::size_t>(d.leaf) / 4;
    if (cell < cells.size()) {
      const std::string why = ref::witness::explain_multiset(
          cells[cell], want[cell],
          ref::send_element_of(c, z.topology, z.role, static_cast<int>(d.element)),
          static_cast<int>(cell), ref::multiset_contributions(c, z.topology, z.role));
      if (!why.empty()) o << "; multiset: " << why;
    }
  }
  return o.str();
}

// Inexact floating-point inputs: each value within the reference's error
// bound (ref::error_bound: per routine, Scan and Exscan by their prefix
// length, every leaf of the datatype counted).
std::optional<std::string> within_error_bound(const ref::Case& c, const ZooComm& z,
                                              const ref::RankPlan& plan,
                                              const ref::Buffer& expected,
                                              const ref::Buffer& observed) {
  const auto bad = ref::first_outside_error_bound(c, z.topology, z.role, plan, expected, observed);
  if (!bad) return std::nullopt;
  std::ostringstream m;
  m.precision(21);
  m << "element " << bad->element << " (leaf " << bad->slot.leaf;
  if (bad->slot.component != 0) m << ", part " << bad->slot.component;
  m << "): observed " << static_cast<double>(bad->observed) << " is farther than the error bound "
    << static_cast<double>(bad->bound) << " from the reference's "
    << static_cast<double>(bad->expected);
  return m.str();
}

// The judgement of one completed call on this rank: the send buffer
// unchanged, no byte around argbuf or the receive buffer written, and the
// received values those of the reference (exactly, or within its error
// bound). nullopt when it passed; *observed gets the receive buffer of an
// inexact Allreduce, for the check that every rank received the same.
std::optional<LocalVerdict> judge_call(
    const ref::Case& c, const ZooComm& z, const ref::RankPlan& plan,
    const std::optional<GuardedBuffer>& send, const std::vector<std::byte>& send_before,
    std::ptrdiff_t send_origin, const std::optional<GuardedBuffer>& arg,
    const std::optional<GuardedBuffer>& recv, std::string* observed_bytes) {
  if (send && send->raw() != send_before) {
    std::size_t i = 0;
    while (send->raw()[i] == send_before[i]) ++i;
    return fail("the send buffer was modified at byte " +
                std::to_string(static_cast<long>(i) - static_cast<long>(GuardedBuffer::kGuard) -
                               static_cast<long>(send_origin)) +
                " relative to its address (" + where(z) + ")");
  }
  if (arg && !arg->guards_intact())
    return fail("bytes around argbuf were written (" + where(z) + ")");
  if (recv && !recv->guards_intact())
    return fail("bytes outside the receive buffer were written (guard bytes changed, " + where(z) +
                ")");
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
      if (c.routine == Routine::allreduce && observed_bytes)
        *observed_bytes = ref::value_bytes(observed);
    }
  }
  return std::nullopt;
}

// ---- The expected-result cache (expect_cache.h) ----
// A case and plan whose expected result is judged byte for byte in full: an
// exact case (an inexact one is judged within an error bound, and the
// library's order of evaluation gives other bits), the receive buffer
// significant, the result defined, and every element of it compared.
bool compared_in_full(const ref::Case& c, const ref::RankPlan& plan) {
  return c.exact && plan.recv_significant && plan.result_defined && plan.recv_initial &&
         plan.recv_compare_elements == plan.recv_initial->count();
}

// A case's plan at this rank. With the digest of its expected result in the
// run's cache, the plan of its own buffers (no other rank's input made,
// nothing reduced) and the digest, for with_expected() after the call;
// otherwise ref::plan(), whose expected result's digest is then kept.
struct Planned {
  ref::RankPlan plan;
  std::optional<expect_cache::Digest> cached;
  // The case's folds in the node's store (shared_folds.h): the expected
  // result is made from them after the call, and kept in the cache then.
  std::shared_ptr<shared_folds::Claim> folds;
  std::optional<expect_cache::Digest> key;
};

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

// After the call: a plan made from the cache gets its expected result, the
// library's receive buffer when that has the digest of the reference's
// expected result (then byte for byte the same), else the reference's own
// (ref::plan), which judges the call as without the cache.
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

struct RankResult {
  LocalVerdict verdict;
  std::string
      observed;  // allreduce with inexact inputs: the receive buffer, for the identical check
  double seconds = 0;
};

// The buffers a call was handed, and a persistent request kept for its next
// starts: they outlive the first call's judgement (run_on_rank).
struct CallState {
  std::optional<GuardedBuffer> send, recv, arg;
  std::ptrdiff_t send_origin = 0;
  MPI_Request kept = MPI_REQUEST_NULL;
  CallState() = default;
  CallState(const CallState&) = delete;
  CallState& operator=(const CallState&) = delete;
  ~CallState() {
    if (kept != MPI_REQUEST_NULL) {
      PhaseTimer timer(Phase::call);  // the library's
      MPI_Request_free(&kept);
    }
  }
};

// How often a persistent request is started, new input before each start
// after the first (MPI-4.1 6.13: a persistent collective request is started
// any number of times, and each start reads the buffers as they are then).
constexpr int kPersistentStarts = 3;

// The seed of the inputs of start `start` (0: the case's own).
std::uint64_t start_seed(std::uint64_t seed, int start) {
  return start == 0 ? seed : seed * 1000003ull + 7919ull * static_cast<std::uint64_t>(start);
}

// Start `start` (1, 2, ...) of the kept persistent request: the inputs of a
// new seed written into the same buffers, the request started and
// completed, the result judged against the reference for those inputs.
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
  g_complete_by_test = c.concurrency == "test";
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

RankResult first_call(const ref::Case& c, const CaseOptions& options, const ZooComm& z,
                      CallState* st);

// The "outstanding" concurrency: how many calls of the case are outstanding
// at once (the case's own and the others, each with its own inputs and
// buffers), completed in reverse order.
constexpr int kOutstanding = 3;
struct OutstandingCall {
  ref::Case c;
  Planned planned;
  std::optional<ref::Buffer> dummy_send;
  std::optional<GuardedBuffer> send, recv;
  std::vector<std::byte> send_before;
  std::ptrdiff_t send_origin = 0;
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = MPI_SUCCESS;
};

// ---- Huge cases, planned a range of elements at a time ----
// A case whose buffers hold more than kWholePlanBytes is never planned whole:
// plan() holds every rank's input and result at once, which for the huge
// counts of the large-count bindings (more than 2^31 bytes per buffer) is
// p + 3 buffers of over 2 GiB per process, and the judgement below copies
// the buffers again. Instead the reference gives the inputs, the receive
// buffer's initial contents and the expected result kRangeBytes at a time
// (ref::plan_without_buffers, input_range, recv_initial_range,
// expected_range), written into and compared with the library's buffers in
// place: this process holds its send and receive buffers (with their guard
// bytes) and a few ranges, and the judgement is the same in full: values
// against the reference, the send buffer unchanged, the guard bytes intact.
constexpr std::size_t kWholePlanBytes = std::size_t{1} << 30;
constexpr std::size_t kRangeBytes = std::size_t{16} << 20;

// Whether the case is judged by ranges: large, and of the kind the ranges
// serve (ref::check_plannable_by_ranges; exact values, bit for bit; no
// repeated call, no judgement of the check's own); any other case is
// planned whole.
bool planned_by_ranges(const ref::Case& c, const CaseOptions& options, const ZooComm& z) {
  if (current_level() == Level::DETECT || !c.exact || options.repeat || options.extra) return false;
  try {
    const ref::Datatype dt = ref::Datatype::parse(c.datatype);
    const int per_rank =
        c.routine == Routine::reduce_scatter || c.routine == Routine::reduce_scatter_block
            ? world_size()
            : 1;
    if (static_cast<std::size_t>(std::abs(dt.extent())) * static_cast<std::size_t>(c.count) *
            static_cast<std::size_t>(per_rank) <=
        kWholePlanBytes)
      return false;
    ref::check_plannable_by_ranges(c, z.topology);
    return true;
  } catch (const std::exception&) {
    return false;  // judged (or failed as not valid) by the whole plan
  }
}

// Calls f(first, n) over [0, count) in ranges of about kRangeBytes; stops
// at the first range for which f returns false.
template <class F>
void for_each_range(int count, std::ptrdiff_t extent, F f) {
  const int step = static_cast<int>(std::max<std::ptrdiff_t>(
      1, static_cast<std::ptrdiff_t>(kRangeBytes) / std::max<std::ptrdiff_t>(1, extent)));
  for (int first = 0; first < count; first += step)
    if (!f(first, std::min(step, count - first))) return;
}

RankResult call_by_ranges(const ref::Case& c, const CaseOptions& options, const ZooComm& z) {
  RankResult out;
  ref::RankPlan plan;
  ref::Datatype dt = ref::Datatype::basic(ref::Basic::INT);
  try {
    dt = ref::Datatype::parse(c.datatype);
    plan = ref::plan_without_buffers(c, z.topology, z.role);
  } catch (const std::exception& e) {
    out.verdict = fail(std::string("ordo: the case is not valid: ") + e.what());
    return out;
  }
  const std::ptrdiff_t extent = dt.extent();
  const auto bytes = [&](int elements) {
    return static_cast<std::size_t>(elements) * static_cast<std::size_t>(extent);
  };
  std::string why;
  bool constructor_failed = false;
  MPI_Datatype mdt = mpi_datatype(dt, &why, &constructor_failed);
  if (mdt == MPI_DATATYPE_NULL) {
    out.verdict =
        constructor_failed ? fail(why + " (" + where(z) + ")") : LocalVerdict{S::skip, why, ""};
    return out;
  }
  std::string op_error;
  MPI_Op mop = mpi_op(c.op, &op_error, c.binding);
  if (mop == MPI_OP_NULL && !op_error.empty()) {
    out.verdict = fail(op_error + " (" + where(z) + ")");
    return out;
  }
  std::optional<GuardedBuffer> send, recv;
  send.emplace(bytes(plan.send_count), 0);
  for_each_range(plan.send_count, extent, [&](int first, int n) {
    send->write_at(bytes(first), ref::input_range(c, z.role, first, n));
    return true;
  });
  if (plan.recv_significant || !c.null_insignificant) {
    recv.emplace(bytes(plan.recv_count), 0);
    for_each_range(plan.recv_count, extent, [&](int first, int n) {
      recv->write_at(bytes(first), ref::recv_initial_range(c, z.role, first, n));
      return true;
    });
  }
  reset_unknown_datatype_calls();
  reset_recorded_calls();
  g_complete_by_test = false;
  const double t0 = MPI_Wtime();
  const int rc =
      invoke(Args{c, z, plan, mdt, mop, send->ptr(), recv ? recv->ptr() : nullptr, nullptr});
  out.seconds = MPI_Wtime() - t0;
  if (options.bare_call) return out;
  add_phase_time(Phase::call, out.seconds);
  PhaseTimer timer(Phase::check);
  const std::string routine =
      std::string(ref::mpi_routine_name(c.routine, c.mode)) + (c.large_count ? "_c" : "");
  if (rc != MPI_SUCCESS) {
    out.verdict = fail(routine + " returned " + error_string(rc) + " (" + where(z) + ")");
    return out;
  }
  if (unknown_datatype_calls() > 0) {
    out.verdict = fail(
        "the user function was called with a datatype handle other than the one passed to " +
        routine + " (" + std::to_string(unknown_datatype_calls()) + " calls, " + where(z) + ")");
    return out;
  }
  // The send buffer: byte for byte the reference's input, guards intact.
  std::optional<LocalVerdict> bad;
  if (!send->guards_intact())
    bad =
        fail("bytes outside the send buffer were written (guard bytes changed, " + where(z) + ")");
  for_each_range(plan.send_count, extent, [&](int first, int n) {
    if (bad) return false;
    const ref::Buffer want = ref::input_range(c, z.role, first, n);
    const ref::Buffer seen = send->read_at(bytes(first), want);
    if (seen.storage() == want.storage()) return true;
    std::size_t i = 0;
    while (seen.storage()[i] == want.storage()[i]) ++i;
    bad = fail("the send buffer was modified at byte " + std::to_string(bytes(first) + i) +
               " relative to its address (" + where(z) + ")");
    return false;
  });
  if (!bad && recv && !recv->guards_intact())
    bad = fail("bytes outside the receive buffer were written (guard bytes changed, " + where(z) +
               ")");
  // The receive buffer: the reference's result, a range at a time.
  if (!bad && recv && plan.recv_significant && plan.result_defined)
    for_each_range(plan.recv_compare_elements, extent, [&](int first, int n) {
      const ref::Buffer want = ref::expected_range(c, z.topology, z.role, first, n);
      const ref::Difference d = ref::first_difference(want, recv->read_at(bytes(first), want));
      if (!d.any) return true;
      std::ostringstream o;
      if (d.in_hole)
        o << "a hole of the receive datatype was written at byte " << bytes(first) + d.byte
          << ": expected untouched " << d.expected << ", observed " << d.observed;
      else
        o << "element " << first + d.element << " (leaf " << d.leaf << ", byte "
          << bytes(first) + d.byte << "): expected " << d.expected << ", observed " << d.observed;
      bad = fail(o.str() + " (" + where(z) + ")");
      return false;
    });
  if (bad) {
    out.verdict = std::move(*bad);
    return out;
  }
  return out;
}

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

// The case's call (for a persistent case: its first start), judged.
RankResult first_call(const ref::Case& c, const CaseOptions& options, const ZooComm& z,
                      CallState* st) {
  RankResult out;
  const bool erroneous = current_level() == Level::DETECT;
  Planned planned;
  ref::RankPlan& plan = planned.plan;
  ref::Datatype dt = ref::Datatype::basic(ref::Basic::INT);
  std::optional<PhaseTimer> phase(std::in_place, Phase::reference);
  try {
    dt = ref::Datatype::parse(c.datatype);
    if (erroneous) {
      try {
        ref::validate_case(c, z.topology);
        out.verdict = fail("ordo: this DETECT case is not erroneous: " + c.describe());
        return out;
      } catch (const ref::SemanticsError&) {
      }
    }
    if (erroneous)
      plan = ref::plan(c, z.topology, z.role, true);
    else
      planned = plan_case(c, z);
    dt = ref::Datatype::parse(plan.datatype);
  } catch (const std::exception& e) {
    out.verdict = fail(std::string("ordo: the case is not valid: ") + e.what());
    return out;
  }
  if (const std::string conflict = ref::concurrency_conflict(c); !conflict.empty()) {
    out.verdict = fail("ordo: the case is not valid: " + conflict);
    return out;
  }
  phase.emplace(Phase::buffers);
  std::string why;
  bool constructor_failed = false;
  MPI_Datatype mdt = mpi_datatype(dt, &why, &constructor_failed);
  if (mdt == MPI_DATATYPE_NULL) {
    // A basic type the library lacks is a skip; a constructor that returned
    // an error is the library's failure, with its error string.
    out.verdict =
        constructor_failed ? fail(why + " (" + where(z) + ")") : LocalVerdict{S::skip, why, ""};
    return out;
  }
  std::string op_error;
  MPI_Op mop = mpi_op(c.op, &op_error, c.binding);
  if (mop == MPI_OP_NULL && !op_error.empty()) {
    out.verdict = fail(op_error + " (" + where(z) + ")");
    return out;
  }
  // DETECT: the erroneous handle the case names, if any (ordo/reference/case.h).
  const ErroneousHandles erroneous_handles(c, &mdt, &mop);
  if (!erroneous_handles.error().empty()) {
    out.verdict = fail(erroneous_handles.error());
    return out;
  }

  std::optional<GuardedBuffer>&send = st->send, &recv = st->recv, &arg = st->arg;
  const bool local = c.routine == Routine::reduce_local || c.routine == Routine::reduce_locals;
  // Reduce_local with MPI_IN_PLACE (erroneous: DETECT) passes it as inbuf;
  // Reduce_locals with in_place passes it as inoutbuf (below).
  const bool in_place_here =
      c.in_place && (c.routine == Routine::reduce_local || (!local && !plan.send_significant));
  std::optional<ref::Buffer> dummy_send;
  if (plan.send && !(c.routine == Routine::reduce_local && c.in_place)) {
    send.emplace(*plan.send);
  } else if (!in_place_here && !c.null_insignificant) {
    // A valid buffer where none is significant: the call must not touch it.
    dummy_send = ref::make_input(c, dt, plan.send_count, z.role.group, z.role.rank);
    send.emplace(*dummy_send);
  }
  if ((plan.recv_significant || !c.null_insignificant) && plan.recv_initial)
    recv.emplace(*plan.recv_initial);
  else if (!c.null_insignificant)
    recv.emplace(ref::make_recv_initial(c, dt, plan.recv_count, z.role.group, z.role.rank));
  if (plan.arg) arg.emplace(*plan.arg);
  std::vector<std::byte> send_before = send ? send->raw() : std::vector<std::byte>{};
  const std::ptrdiff_t send_origin = st->send_origin =
      plan.send ? plan.send->origin() : (dummy_send ? dummy_send->origin() : 0);

  void* rb = recv ? recv->ptr() : nullptr;
  const void* sb = send ? send->ptr() : (in_place_here ? MPI_IN_PLACE : nullptr);
  const void* ab = arg ? arg->ptr() : nullptr;
  if (c.routine == Routine::reduce_locals) {
    if (c.locals_in_is_in_place) sb = MPI_IN_PLACE;
    ab = c.locals_arg_is_in_place ? MPI_IN_PLACE : (c.locals_arg_is_in ? sb : ab);
    if (c.locals_arg_is_in && c.locals_in_is_in_place) ab = MPI_IN_PLACE;
  }
  if (c.alias_send_recv) {
    sb = rb;  // erroneous on purpose (DETECT)
    if (c.routine == Routine::reduce_locals && c.locals_arg_is_in) ab = rb;
  }
  if (c.routine == Routine::reduce_locals && c.in_place) rb = static_cast<void*>(MPI_IN_PLACE);

  reset_unknown_datatype_calls();
  reset_recorded_calls();
  phase.reset();
  const double t0 = MPI_Wtime();
  // A persistent request is kept for its next starts (run_on_rank); not in a
  // DETECT case, nor for a benchmark's bare call.
  const bool keep = c.mode == ref::Mode::persistent && !erroneous && !options.bare_call && !local &&
                    c.erroneous.empty();
  g_complete_by_test = c.concurrency == "test";
  const bool outstanding = c.concurrency == "outstanding" && !erroneous && !options.bare_call;
  const bool freed = c.concurrency == "freed" && !erroneous && !options.bare_call;
  // freed: a datatype and an op handle made for this call alone, freed while
  // its request is pending.
  MPI_Datatype call_dt = mdt;
  MPI_Op call_op = mop;
  if (freed) {
    if (!dt.predefined()) {
      call_dt = mpi_datatype_fresh(dt, &why, &constructor_failed);
      if (call_dt == MPI_DATATYPE_NULL) {
        out.verdict = fail(why + " (" + where(z) + ")");
        return out;
      }
    }
    if (const MPI_Op fresh = mpi_op_fresh(c.op, &op_error, c.binding); fresh != MPI_OP_NULL) {
      call_op = fresh;
    } else if (!op_error.empty()) {
      out.verdict = fail(op_error + " (" + where(z) + ")");
      return out;
    }
  }
  MPI_Request pending = MPI_REQUEST_NULL;
  std::deque<OutstandingCall> others;
  std::string concurrency_error;
  int rc = invoke(Args{c, z, plan, call_dt, call_op, sb, rb, ab, keep ? &st->kept : nullptr,
                       outstanding || freed ? &pending : nullptr});
  if (freed) {
    if (call_op != mop) {
      const int frc = MPI_Op_free(&call_op);
      if (frc != MPI_SUCCESS)
        concurrency_error = "MPI_Op_free of the pending call's op returned " + error_string(frc);
    }
    MPI_Datatype freed_dt = call_dt;
    if (call_dt != mdt && !must_not_free(dt, call_dt)) {
      const int frc = MPI_Type_free(&freed_dt);
      if (frc != MPI_SUCCESS && concurrency_error.empty())
        concurrency_error =
            "MPI_Type_free of the pending call's datatype returned " + error_string(frc);
    }
    if (rc == MPI_SUCCESS) rc = complete(&pending);
    if (call_dt != mdt) forget_datatype(call_dt);
  }
  if (outstanding && rc == MPI_SUCCESS) {
    // The other calls, started while the case's own is pending, on the same
    // communicator with the same arguments and their own inputs.
    for (int i = 1; i < kOutstanding; ++i) {
      OutstandingCall& o = others.emplace_back();
      o.c = c;
      o.c.seed = start_seed(c.seed, i);
      o.planned = plan_case(o.c, z);  // inside the call's time, as the call's own plan was
      if (o.planned.plan.send) {
        o.send.emplace(*o.planned.plan.send);
        o.send_origin = o.planned.plan.send->origin();
      } else if (!in_place_here && !c.null_insignificant) {
        o.dummy_send =
            ref::make_input(o.c, dt, o.planned.plan.send_count, z.role.group, z.role.rank);
        o.send.emplace(*o.dummy_send);
        o.send_origin = o.dummy_send->origin();
      }
      if ((o.planned.plan.recv_significant || !c.null_insignificant) && o.planned.plan.recv_initial)
        o.recv.emplace(*o.planned.plan.recv_initial);
      else if (!c.null_insignificant)
        o.recv.emplace(
            ref::make_recv_initial(o.c, dt, o.planned.plan.recv_count, z.role.group, z.role.rank));
      if (o.send) o.send_before = o.send->raw();
      const void* osb = o.send ? o.send->ptr() : (in_place_here ? MPI_IN_PLACE : nullptr);
      void* orb = o.recv ? o.recv->ptr() : nullptr;
      o.rc = invoke(Args{o.c, z, o.planned.plan, mdt, mop, osb, orb, nullptr, nullptr, &o.req});
    }
    // Completed in reverse order: the last started first, the case's own last.
    for (auto it = others.rbegin(); it != others.rend(); ++it)
      if (it->rc == MPI_SUCCESS) it->rc = complete(&it->req);
    rc = complete(&pending);
  }
  out.seconds = MPI_Wtime() - t0;
  if (options.bare_call) return out;
  add_phase_time(Phase::call, out.seconds);
  phase.emplace(Phase::check);
  // SHOULD: the same call again on every rank, from fresh copies of the buffers.
  std::optional<GuardedBuffer> send2, recv2;
  int rc2 = MPI_SUCCESS;
  if (options.repeat && rc == MPI_SUCCESS) {
    if (send) send2.emplace(plan.send ? *plan.send : *dummy_send);
    if (recv) recv2.emplace(*plan.recv_initial);
    rc2 = invoke(
        Args{c, z, plan, mdt, mop, send2 ? send2->ptr() : sb, recv2 ? recv2->ptr() : rb, ab});
  }
  const std::string routine(ref::mpi_routine_name(c.routine, c.mode));

  if (erroneous) {
    if (rc != MPI_SUCCESS)
      out.verdict = {S::pass, routine + " returned " + error_string(rc), "reported"};
    else
      out.verdict = {S::pass, "", "accepted"};
    return out;
  }
  if (rc != MPI_SUCCESS) {
    out.verdict = fail(routine + " returned " + error_string(rc) + " (" + where(z) + ")");
    return out;
  }
  if (unknown_datatype_calls() > 0) {
    out.verdict = fail(
        "the user function was called with a datatype handle other than the one passed to " +
        routine + " (" + std::to_string(unknown_datatype_calls()) + " calls, " + where(z) + ")");
    return out;
  }
  // with_expected() times itself (the digest as checking, a full plan as the
  // reference): the check phase pauses meanwhile, so no second is counted twice.
  phase.reset();
  with_expected(&planned, c, z, recv);
  for (OutstandingCall& o : others)
    if (o.rc == MPI_SUCCESS) with_expected(&o.planned, o.c, z, o.recv);
  phase.emplace(Phase::check);
  if (auto bad = judge_call(c, z, plan, send, send_before, send_origin, arg, recv, &out.observed)) {
    if (outstanding)
      bad->message =
          "the first of " + std::to_string(kOutstanding) + " outstanding calls: " + bad->message;
    out.verdict = std::move(*bad);
    return out;
  }
  if (!concurrency_error.empty()) {
    out.verdict = fail(concurrency_error + " (" + where(z) + ")");
    return out;
  }
  int n = 1;
  for (OutstandingCall& o : others) {
    const std::string what = "outstanding call " + std::to_string(++n) + " of " +
                             std::to_string(kOutstanding) + " (started while the others were " +
                             "pending, seed " + std::to_string(o.c.seed) + "): ";
    if (o.rc != MPI_SUCCESS) {
      out.verdict = fail(what + routine + " or its completion returned " + error_string(o.rc) +
                         " (" + where(z) + ")");
      return out;
    }
    static const std::optional<GuardedBuffer> no_arg;
    if (auto bad = judge_call(o.c, z, o.planned.plan, o.send, o.send_before, o.send_origin, no_arg,
                              o.recv, nullptr)) {
      bad->message = what + bad->message;
      out.verdict = std::move(*bad);
      return out;
    }
  }
  if (recv && plan.recv_significant && plan.result_defined && plan.recv_expected) {
    const ref::Buffer& expected = *plan.recv_expected;
    if (options.repeat) {
      const ref::Buffer again = recv2->contents(expected);
      if (rc2 != MPI_SUCCESS ||
          ref::value_bytes(again) != ref::value_bytes(recv->contents(expected))) {
        out.verdict =
            fail("the same call repeated with the same arguments gave a different result (" +
                 where(z) + ")");
        return out;
      }
    }
  }
  if (options.extra) out.verdict = options.extra(CaseContext{c, z, plan, recv});
  return out;
}

}  // namespace

int root_count(const std::string& shape, bool high_group) {
  const ZooComm& z = zoo(shape);
  if (!z.available) return 0;
  const int p = world_size();
  if (z.topology.inter) return high_group ? z.topology.size_high : z.topology.size_low;
  if (shape == "odd-even") return p / 2;
  if (shape == "self") return 1;
  return p;
}

// Why the case's binding cannot make its call here (a skip), if it cannot.
static std::optional<std::string> binding_lacks(const ref::Case& c) {
  if (c.binding == "c") return std::nullopt;
  const std::string module = c.binding == "f08" ? "mpi_f08" : "mpi";
  const std::string routine = std::string(ref::mpi_routine_name(c.routine, c.mode));
  bool have = false, persistent = false, large = false;
#ifdef ORDO_HAVE_FORTRAN_F08
  if (c.binding == "f08") have = true;
#endif
#ifdef ORDO_FORTRAN_F08_PERSISTENT
  if (c.binding == "f08") persistent = true;
#endif
#ifdef ORDO_FORTRAN_F08_LARGE_COUNT
  if (c.binding == "f08") large = true;
#endif
#ifdef ORDO_HAVE_FORTRAN_F90
  if (c.binding == "f90") have = true;
#endif
#ifdef ORDO_FORTRAN_F90_PERSISTENT
  if (c.binding == "f90") persistent = true;
#endif
  if (!have) {
    const std::string lacks = ORDO_FORTRAN_LACKS;
    return "the " + c.binding + " binding (use " + module + ") is not built: " +
           (lacks.empty() ? "the library's Fortran wrapper does not compile `use " + module + "`"
                          : lacks);
  }
  if (c.routine == Routine::reduce_locals)
    return std::string("the MPI_Reduce_locals proposal defines no Fortran binding");
  if (c.op == "witness.tracer-c" && c.binding == "f90")
    return std::string(
        "the mpi module has no MPI_Op_create_c (large-count user functions are mpi_f08's)");
#ifdef ORDO_FORTRAN_F08_OP_CREATE_C
  if (c.op == "witness.tracer-c")
    return std::string("ordo has no f08 user function for MPI_Op_create_c (MPI_User_function_c)");
#else
  if (c.op == "witness.tracer-c")
    return std::string("MPI_Op_create_c is not provided by this library's mpi_f08 module");
#endif
  const bool local = c.routine == Routine::reduce_local;
  if (c.mode == ref::Mode::persistent && !local && !persistent)
    return routine + " is not provided by this library's " + module + " module";
  if (c.large_count && c.binding == "f90")
    return std::string(
        "the mpi module has no large-count forms (the standard gives them to mpi_f08 only)");
  if (c.large_count && !large)
    return routine + " with an INTEGER(MPI_COUNT_KIND) count is not provided by this library's " +
           module + " module";
  return std::nullopt;
}

std::optional<std::string> missing_feature(const ref::Case& c) {
  const bool local = c.routine == Routine::reduce_local || c.routine == Routine::reduce_locals;
#ifndef ORDO_HAVE_PERSISTENT_COLLECTIVES
  if (c.mode == ref::Mode::persistent && !local)
    return std::string(ref::mpi_routine_name(c.routine, c.mode)) +
           " is not provided by this library (MPI-4 persistent collectives)";
#endif
#ifndef ORDO_HAVE_LARGE_COUNT
  if (c.large_count)
    return std::string(ref::mpi_routine_name(c.routine, c.mode)) +
           "_c is not provided by this library (MPI-4 large-count bindings)";
#endif
#ifndef ORDO_HAVE_LARGE_COUNT
  if (c.op == "witness.tracer-c")
    return std::string(
        "MPI_Op_create_c is not provided by this library (MPI-4 large-count user functions)");
#endif
  if (const std::string lacks = value_index_lacks(); !lacks.empty()) {
    // Whether a datatype's text uses the routine, parsed once per text (the
    // crossing check asks for each of a million valid calls).
    thread_local std::unordered_map<std::string, bool> uses;
    for (const std::string* text : {&c.datatype, &c.root_datatype}) {
      if (text->empty()) continue;
      auto it = uses.find(*text);
      if (it == uses.end()) {
        bool used = false;
        try {
          used = ref::Datatype::parse(*text).uses_value_index();
        } catch (const ref::UsageError&) {
          // a malformed datatype is the case's own failure, reported when it runs
        }
        it = uses.emplace(*text, used).first;
      }
      if (it->second) return lacks;
    }
  }
  if (auto why = binding_lacks(c)) return why;
  if (c.comm == "session") {
    const std::string lacks = session_lacks();
    if (!lacks.empty()) return lacks;
  }
  if (c.large_count && c.routine == Routine::reduce_locals)
    return std::string("the MPI_Reduce_locals proposal defines no large-count (_c) binding");
  (void)local;
  return std::nullopt;
}

double time_bare_call(const ref::Case& c) {
  const bool local = c.routine == Routine::reduce_local || c.routine == Routine::reduce_locals;
  const ZooComm& z = zoo(local ? "self" : c.comm);
  if (!z.available || missing_feature(c)) return 0;
  gather_to_rank0("");  // every rank has arrived ...
  for (int r = 1; r < world_size() && world_rank() == 0; ++r)
    MPI_Send(nullptr, 0, MPI_BYTE, r, 31004, harness_comm());
  if (world_rank() != 0)
    MPI_Recv(nullptr, 0, MPI_BYTE, 0, 31004, harness_comm(),
             MPI_STATUS_IGNORE);  // ... and knows it
  CaseOptions bare;
  bare.bare_call = true;
  return z.member ? run_on_rank(c, bare, z).seconds : 0.0;
}

Outcome run_case(const ref::Case& c, const CaseOptions& options) {
  if (!begin_case(&c)) return Outcome::skip;
  const bool local = c.routine == Routine::reduce_local || c.routine == Routine::reduce_locals;
  std::optional<PhaseTimer> shape_phase(std::in_place, Phase::shape);
  const ZooComm& z = zoo(local ? "self" : c.comm);
  shape_phase.reset();
  if (!z.available && !z.failure.empty())
    return record(
        c, {S::fail, "the communicator shape " + c.comm + " could not be built: " + z.failure, ""},
        0, 0);
  if (!z.available && !z.lacks.empty()) return record(c, {S::skip, z.lacks, ""}, 0, 0);
  if (!z.available)
    return record(c, {S::skip, "communicator shape " + c.comm + " needs more ranks", ""}, 0, 0);
  if (auto why = missing_feature(c)) return record(c, {S::skip, *why, ""}, 0, 0);
  const int comm_size = z.topology.size_low + z.topology.size_high;
  note_case_comm(local ? "self" : c.comm, comm_size);
  if (const std::string id = known_fatal_waiver(c, comm_size); !id.empty())
    return record(c, {S::skip, known_fatal_skip(id), ""}, 0, 0);
  if (std::string why = held_back(c, comm_size); !why.empty())
    return record(c, {S::skip, why, ""}, 0, comm_size);
  RankResult mine;
  if (z.member)
    mine = run_on_rank(c, options, z);
  else
    mine.verdict = {S::absent, "", ""};

  // Allreduce with inexact inputs: every rank of a communicator must hold
  // bit-identical results (MPI-4.1 6.9.6), whatever order the library chose.
  if (c.routine == Routine::allreduce && !c.exact && current_level() != Level::DETECT) {
    PhaseTimer timer(Phase::verdict);
    const std::string payload = std::to_string(z.color) + ":" + mine.observed;
    const auto all = gather_to_rank0(mine.verdict.status == S::pass ? payload : std::string());
    if (world_rank() == 0) {
      std::map<std::string, std::pair<std::size_t, std::string>> first;  // color -> (rank, result)
      for (std::size_t r = 0; r < all.size() && mine.verdict.status != S::fail; ++r) {
        if (all[r].empty()) continue;
        const std::string color = all[r].substr(0, all[r].find(':'));
        auto it = first.find(color);
        if (it == first.end()) {
          first[color] = {r, all[r]};
        } else if (it->second.second != all[r]) {
          mine.verdict = fail("world rank " + std::to_string(r) +
                              " received a result that is not bit-identical to world rank " +
                              std::to_string(it->second.first) + "'s, in the same communicator");
        }
      }
    }
  }
  const Outcome outcome = record(c, mine.verdict, mine.seconds, comm_size);
  // A collective that failed, or returned an error, on some processes only
  // may leave messages behind in its communicator that a later case would
  // receive: the shape is built afresh after any case that did not pass, and
  // after every erroneous (DETECT) case. Every rank knows the outcome.
  if (!local && (outcome != Outcome::pass || current_level() == Level::DETECT)) {
    PhaseTimer timer(Phase::shape);
    renew_shape(c.comm);
  }
  return outcome;
}

}  // namespace ordo::harness
