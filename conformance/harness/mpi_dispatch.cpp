// The call of a case (mpi_dispatch.h): one table over routine x form gives
// the library's function, called with the operands the case names (its
// erroneous scalars put in for DETECT); what follows the call depends on the
// form alone: nothing (blocking), the request completed or left pending
// (nonblocking), started and completed, then freed or kept (persistent).
#include "mpi_dispatch.h"

#include <dlfcn.h>

#include <cstddef>
#include <memory>
#include <vector>

#include "erroneous_args.h"
#include "fortran_layer.h"
#include "harness.h"
#include "messages.h"
#include "mpi_types.h"
#include "mpix_reduce_locals_portable.h"

namespace ordo::harness {
namespace {

using ref::Routine;

bool g_complete_by_test = false;

using ReduceLocalsFn = int (*)(const void*, const void*, void*, int, MPI_Datatype, MPI_Op);

// The library's own MPIX_Reduce_locals when it has one, else ordo's portable one.
ReduceLocalsFn reduce_locals_impl() {
  static ReduceLocalsFn f = [] {
    void* sym = library_has_reduce_locals() ? dlsym(RTLD_DEFAULT, "MPIX_Reduce_locals") : nullptr;
    return sym ? reinterpret_cast<ReduceLocalsFn>(sym) : &ordo_portable_reduce_locals;
  }();
  return f;
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

// The arguments of the call, whatever its routine and form.
struct Operands {
  const void* send;
  const void* arg;  // MPIX_Reduce_locals' argbuf
  void* recv;
  int count;                        // Reduce_scatter_block: its recvcount
  std::vector<int> counts;          // Reduce_scatter: this rank's group's recvcounts
  std::vector<MPI_Count> counts_c;  // the same for a `_c` call
  MPI_Datatype dt;
  MPI_Op op;
  int root;
  MPI_Comm comm;
};

Operands operands(const Args& k) {
  const ref::Case& c = k.c;
  Operands o{k.send,  k.arg, k.recv, c.count, {}, {}, k.dt, k.op, mpi_root(c, k.z, k.plan),
             k.z.comm};
  if (c.routine == Routine::reduce_scatter) o.counts = scatter_counts(c, k.z);
  int block =
      c.routine == Routine::reduce_scatter_block && k.z.topology.inter
          ? ref::effective_recvcounts(c, k.z.topology)[static_cast<std::size_t>(k.z.role.group)]
          : c.count;
  if (!c.erroneous.empty()) erroneous_scalars(c, &o.count, &o.counts, &block, &o.root);  // DETECT
  if (c.routine == Routine::reduce_scatter_block) o.count = block;
  if (c.large_count) o.counts_c.assign(o.counts.begin(), o.counts.end());
  return o;
}

// One cell of the table: the call, given the operands and where a request
// goes (nonblocking, persistent init).
using Call = int (*)(const Operands&, MPI_Request*);
#define ORDO_CALL(...) \
  [](const Operands& o, [[maybe_unused]] MPI_Request* req) -> int { return __VA_ARGS__; }
// A form the library may lack is a null cell (missing_feature() skips its cases).
#ifdef ORDO_HAVE_PERSISTENT_COLLECTIVES
#define ORDO_INIT(...) ORDO_CALL(__VA_ARGS__)
#else
#define ORDO_INIT(...) nullptr
#endif
#ifdef ORDO_HAVE_LARGE_COUNT
#define ORDO_CALL_C(...) ORDO_CALL(__VA_ARGS__)
#else
#define ORDO_CALL_C(...) nullptr
#endif
#if defined(ORDO_HAVE_LARGE_COUNT) && defined(ORDO_HAVE_PERSISTENT_COLLECTIVES)
#define ORDO_INIT_C(...) ORDO_CALL(__VA_ARGS__)
#else
#define ORDO_INIT_C(...) nullptr
#endif

// The columns: the forms (ref::Mode) of the int binding, then of the `_c` one.
constexpr int kModes = 3;
constexpr int kRoutines = 8;
static_assert(static_cast<int>(Routine::reduce_locals) == kRoutines - 1);
const Call kCalls[kRoutines][2 * kModes] = {
    {ORDO_CALL(MPI_Reduce(o.send, o.recv, o.count, o.dt, o.op, o.root, o.comm)),
     ORDO_CALL(MPI_Ireduce(o.send, o.recv, o.count, o.dt, o.op, o.root, o.comm, req)),
     ORDO_INIT(
         MPI_Reduce_init(o.send, o.recv, o.count, o.dt, o.op, o.root, o.comm, MPI_INFO_NULL, req)),
     ORDO_CALL_C(MPI_Reduce_c(o.send, o.recv, o.count, o.dt, o.op, o.root, o.comm)),
     ORDO_CALL_C(MPI_Ireduce_c(o.send, o.recv, o.count, o.dt, o.op, o.root, o.comm, req)),
     ORDO_INIT_C(MPI_Reduce_init_c(o.send, o.recv, o.count, o.dt, o.op, o.root, o.comm,
                                   MPI_INFO_NULL, req))},
    {ORDO_CALL(MPI_Allreduce(o.send, o.recv, o.count, o.dt, o.op, o.comm)),
     ORDO_CALL(MPI_Iallreduce(o.send, o.recv, o.count, o.dt, o.op, o.comm, req)),
     ORDO_INIT(MPI_Allreduce_init(o.send, o.recv, o.count, o.dt, o.op, o.comm, MPI_INFO_NULL, req)),
     ORDO_CALL_C(MPI_Allreduce_c(o.send, o.recv, o.count, o.dt, o.op, o.comm)),
     ORDO_CALL_C(MPI_Iallreduce_c(o.send, o.recv, o.count, o.dt, o.op, o.comm, req)),
     ORDO_INIT_C(
         MPI_Allreduce_init_c(o.send, o.recv, o.count, o.dt, o.op, o.comm, MPI_INFO_NULL, req))},
    {ORDO_CALL(MPI_Reduce_scatter(o.send, o.recv, o.counts.data(), o.dt, o.op, o.comm)),
     ORDO_CALL(MPI_Ireduce_scatter(o.send, o.recv, o.counts.data(), o.dt, o.op, o.comm, req)),
     ORDO_INIT(MPI_Reduce_scatter_init(o.send, o.recv, o.counts.data(), o.dt, o.op, o.comm,
                                       MPI_INFO_NULL, req)),
     ORDO_CALL_C(MPI_Reduce_scatter_c(o.send, o.recv, o.counts_c.data(), o.dt, o.op, o.comm)),
     ORDO_CALL_C(MPI_Ireduce_scatter_c(o.send, o.recv, o.counts_c.data(), o.dt, o.op, o.comm, req)),
     ORDO_INIT_C(MPI_Reduce_scatter_init_c(o.send, o.recv, o.counts_c.data(), o.dt, o.op, o.comm,
                                           MPI_INFO_NULL, req))},
    {ORDO_CALL(MPI_Reduce_scatter_block(o.send, o.recv, o.count, o.dt, o.op, o.comm)),
     ORDO_CALL(MPI_Ireduce_scatter_block(o.send, o.recv, o.count, o.dt, o.op, o.comm, req)),
     ORDO_INIT(MPI_Reduce_scatter_block_init(o.send, o.recv, o.count, o.dt, o.op, o.comm,
                                             MPI_INFO_NULL, req)),
     ORDO_CALL_C(MPI_Reduce_scatter_block_c(o.send, o.recv, o.count, o.dt, o.op, o.comm)),
     ORDO_CALL_C(MPI_Ireduce_scatter_block_c(o.send, o.recv, o.count, o.dt, o.op, o.comm, req)),
     ORDO_INIT_C(MPI_Reduce_scatter_block_init_c(o.send, o.recv, o.count, o.dt, o.op, o.comm,
                                                 MPI_INFO_NULL, req))},
    {ORDO_CALL(MPI_Scan(o.send, o.recv, o.count, o.dt, o.op, o.comm)),
     ORDO_CALL(MPI_Iscan(o.send, o.recv, o.count, o.dt, o.op, o.comm, req)),
     ORDO_INIT(MPI_Scan_init(o.send, o.recv, o.count, o.dt, o.op, o.comm, MPI_INFO_NULL, req)),
     ORDO_CALL_C(MPI_Scan_c(o.send, o.recv, o.count, o.dt, o.op, o.comm)),
     ORDO_CALL_C(MPI_Iscan_c(o.send, o.recv, o.count, o.dt, o.op, o.comm, req)),
     ORDO_INIT_C(MPI_Scan_init_c(o.send, o.recv, o.count, o.dt, o.op, o.comm, MPI_INFO_NULL, req))},
    {ORDO_CALL(MPI_Exscan(o.send, o.recv, o.count, o.dt, o.op, o.comm)),
     ORDO_CALL(MPI_Iexscan(o.send, o.recv, o.count, o.dt, o.op, o.comm, req)),
     ORDO_INIT(MPI_Exscan_init(o.send, o.recv, o.count, o.dt, o.op, o.comm, MPI_INFO_NULL, req)),
     ORDO_CALL_C(MPI_Exscan_c(o.send, o.recv, o.count, o.dt, o.op, o.comm)),
     ORDO_CALL_C(MPI_Iexscan_c(o.send, o.recv, o.count, o.dt, o.op, o.comm, req)),
     ORDO_INIT_C(
         MPI_Exscan_init_c(o.send, o.recv, o.count, o.dt, o.op, o.comm, MPI_INFO_NULL, req))},
    // The local reductions have the blocking form alone.
    {ORDO_CALL(MPI_Reduce_local(o.send, o.recv, o.count, o.dt, o.op)), nullptr, nullptr,
     ORDO_CALL_C(MPI_Reduce_local_c(o.send, o.recv, o.count, o.dt, o.op)), nullptr, nullptr},
    {ORDO_CALL(reduce_locals_impl()(o.send, o.arg, o.recv, o.count, o.dt, o.op)), nullptr, nullptr,
     nullptr, nullptr, nullptr}};
#undef ORDO_CALL
#undef ORDO_INIT
#undef ORDO_CALL_C
#undef ORDO_INIT_C

// A persistent request just initialised: started and completed, then freed
// or, when keep is given, kept there for more starts.
int start_and_free(MPI_Request* req, MPI_Request* keep) {
  int rc = MPI_Start(req);
  if (rc == MPI_SUCCESS) rc = complete(req);
  if (keep && rc == MPI_SUCCESS)
    *keep = *req;
  else
    MPI_Request_free(req);
  return rc;
}

// What follows a call that returned rc, by its form: a request completed or
// handed to k.pending (nonblocking), started (persistent).
int after_call(int rc, ref::Mode form, MPI_Request* req, const Args& k) {
  if (rc != MPI_SUCCESS || form == ref::Mode::blocking) return rc;
  if (form == ref::Mode::persistent) return start_and_free(req, k.keep);
  if (k.pending) {
    *k.pending = *req;
    return MPI_SUCCESS;
  }
  return complete(req);
}

// A local reduction completes in the call, whatever the case's mode.
ref::Mode form_of(const ref::Case& c) {
  const bool local = c.routine == Routine::reduce_local || c.routine == Routine::reduce_locals;
  return local ? ref::Mode::blocking : c.mode;
}

#if defined(ORDO_HAVE_FORTRAN_F08) || defined(ORDO_HAVE_FORTRAN_F90)
// The call through the case's Fortran binding (fortran_layer.h): the handles
// as Fortran handles, MPI_IN_PLACE as the Fortran program's own; a request
// comes back as a Fortran handle and is completed (or kept, or left pending)
// as the C call's is.
int invoke_fortran(const Args& k, const Operands& o) {
  const ref::Case& c = k.c;
  const int routine = static_cast<int>(c.routine), mode = static_cast<int>(c.mode);
  const int in_place = k.send == MPI_IN_PLACE ? 1 : 0;
  const void* send = in_place ? nullptr : k.send;
  // The held arrays themselves (never a copy the call's return frees); a valid
  // address where there are none, which only Reduce_scatter reads.
  static const int no_counts[1] = {0};
  static const MPI_Count no_counts_c[1] = {0};
  const int ncounts = static_cast<int>(o.counts.size());
  const int* counts = o.counts.empty() ? no_counts : o.counts.data();
  const MPI_Count* counts_c = o.counts_c.empty() ? no_counts_c : o.counts_c.data();
  MPI_Fint freq = MPI_Request_c2f(MPI_REQUEST_NULL);
  int rc = MPI_ERR_OTHER;
#ifdef ORDO_HAVE_FORTRAN_F08
  if (c.binding == "f08")
    rc = ordo_f08_call(routine, mode, c.large_count ? 1 : 0, send, k.recv, in_place, o.count,
                       counts, counts_c, ncounts, MPI_Type_c2f(k.dt), MPI_Op_c2f(k.op), o.root,
                       MPI_Comm_c2f(k.z.comm), &freq);
#endif
#ifdef ORDO_HAVE_FORTRAN_F90
  if (c.binding == "f90")
    rc = ordo_f90_call(routine, mode, send, k.recv, in_place, o.count, counts, ncounts,
                       MPI_Type_c2f(k.dt), MPI_Op_c2f(k.op), o.root, MPI_Comm_c2f(k.z.comm), &freq);
#endif
  MPI_Request req = MPI_Request_f2c(freq);
  return after_call(rc, form_of(c), &req, k);
}
#endif

}  // namespace

std::optional<LocalVerdict> make_handles(const ref::Case& c, const ref::Datatype& dt,
                                         const ZooComm& z, CallHandles* h) {
  h->dt = mpi_datatype(dt, &h->why, &h->constructor_failed);
  if (h->dt == MPI_DATATYPE_NULL)
    return h->constructor_failed ? fail(h->why + " (" + where(z) + ")")
                                 : LocalVerdict{LocalVerdict::Status::skip, h->why, ""};
  h->op = mpi_op(c.op, &h->op_error, c.binding);
  if (h->op == MPI_OP_NULL && !h->op_error.empty())
    return fail(h->op_error + " (" + where(z) + ")");
  return std::nullopt;
}

void complete_by_test(bool by_test) { g_complete_by_test = by_test; }

int complete(MPI_Request* req) {
  if (!g_complete_by_test) return MPI_Wait(req, MPI_STATUS_IGNORE);
  for (;;) {
    int flag = 0;
    const int rc = MPI_Test(req, &flag, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS || flag) return rc;
  }
}

int invoke(const Args& k) {
  const ref::Case& c = k.c;
  const auto held = std::make_shared<const Operands>(operands(k));
  if (k.hold) *k.hold = held;
  const Operands& o = *held;
#if defined(ORDO_HAVE_FORTRAN_F08) || defined(ORDO_HAVE_FORTRAN_F90)
  if (c.binding != "c") return invoke_fortran(k, o);
#endif
  const ref::Mode form = form_of(c);
  const Call call =
      kCalls[static_cast<int>(c.routine)][static_cast<int>(form) + (c.large_count ? kModes : 0)];
  if (!call) return MPI_ERR_OTHER;  // unreachable: missing_feature() skips the case
  MPI_Request req = MPI_REQUEST_NULL;
  return after_call(call(o, &req), form, &req, k);
}

}  // namespace ordo::harness
