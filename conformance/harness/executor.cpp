#include "executor.h"

#include <memory>
#include <optional>
#include <sstream>

#include "comm_zoo.h"
#include "guarded_buffer.h"
#include "mpi_types.h"
#include "ordo/reference/errors.h"
#include "ordo/reference/oracle.h"
#include "ordo/reference/witness.h"

namespace ordo::harness {
namespace {

using ref::Routine;
using S = LocalVerdict::Status;

LocalVerdict fail(std::string m) { return {S::fail, std::move(m)}; }

struct Call {
  const ref::Case& c;
  const ZooComm& z;
  const ref::RankPlan& plan;
  MPI_Datatype dt;
  MPI_Op op;
  void* send;
  void* recv;
  void* arg;
};

int mpi_root(const ref::Case& c, const ZooComm& z, const ref::RankPlan& p) {
  using RR = ref::RankPlan::RootRole;
  if (z.topology.inter) {
    if (p.root_role == RR::root) return MPI_ROOT;
    if (p.root_role == RR::other_in_root_group) return MPI_PROC_NULL;
  }
  return c.root;
}

// Issues the call in the case's mode. Returns the MPI error code.
int invoke(const Call& k, std::string* skip) {
  const ref::Case& c = k.c;
  MPI_Comm comm = k.z.comm;
  const int count = c.count;
  std::vector<int> counts;
  int block = c.count;
  if (c.routine == Routine::reduce_scatter) {
    if (k.z.topology.inter) {
      const int lo = k.z.topology.size_low;
      counts = k.z.role.group == 0
                   ? std::vector<int>(c.recvcounts.begin(), c.recvcounts.begin() + lo)
                   : std::vector<int>(c.recvcounts.begin() + lo, c.recvcounts.end());
    } else {
      counts = c.recvcounts;
    }
  }
  if (c.routine == Routine::reduce_scatter_block && k.z.topology.inter) block = c.recvcounts[k.z.role.group];
  const int root = mpi_root(c, k.z, k.plan);
  if (c.routine == Routine::reduce_local)
    return MPI_Reduce_local(k.send, k.recv, count, k.dt, k.op);
  if (c.routine == Routine::reduce_locals) {
    *skip = "MPIX_Reduce_locals is not part of this harness yet";
    return MPI_SUCCESS;
  }
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = MPI_SUCCESS;
  if (c.mode == ref::Mode::blocking) {
    switch (c.routine) {
      case Routine::reduce: return MPI_Reduce(k.send, k.recv, count, k.dt, k.op, root, comm);
      case Routine::allreduce: return MPI_Allreduce(k.send, k.recv, count, k.dt, k.op, comm);
      case Routine::reduce_scatter:
        return MPI_Reduce_scatter(k.send, k.recv, counts.data(), k.dt, k.op, comm);
      case Routine::reduce_scatter_block:
        return MPI_Reduce_scatter_block(k.send, k.recv, block, k.dt, k.op, comm);
      case Routine::scan: return MPI_Scan(k.send, k.recv, count, k.dt, k.op, comm);
      case Routine::exscan: return MPI_Exscan(k.send, k.recv, count, k.dt, k.op, comm);
      default: break;
    }
  } else if (c.mode == ref::Mode::nonblocking) {
    switch (c.routine) {
      case Routine::reduce: rc = MPI_Ireduce(k.send, k.recv, count, k.dt, k.op, root, comm, &req); break;
      case Routine::allreduce: rc = MPI_Iallreduce(k.send, k.recv, count, k.dt, k.op, comm, &req); break;
      case Routine::reduce_scatter:
        rc = MPI_Ireduce_scatter(k.send, k.recv, counts.data(), k.dt, k.op, comm, &req);
        break;
      case Routine::reduce_scatter_block:
        rc = MPI_Ireduce_scatter_block(k.send, k.recv, block, k.dt, k.op, comm, &req);
        break;
      case Routine::scan: rc = MPI_Iscan(k.send, k.recv, count, k.dt, k.op, comm, &req); break;
      case Routine::exscan: rc = MPI_Iexscan(k.send, k.recv, count, k.dt, k.op, comm, &req); break;
      default: break;
    }
    if (rc != MPI_SUCCESS) return rc;
    return MPI_Wait(&req, MPI_STATUS_IGNORE);
  } else {
#ifdef ORDO_HAVE_PERSISTENT_COLLECTIVES
    switch (c.routine) {
      case Routine::reduce:
        rc = MPI_Reduce_init(k.send, k.recv, count, k.dt, k.op, root, comm, MPI_INFO_NULL, &req);
        break;
      case Routine::allreduce:
        rc = MPI_Allreduce_init(k.send, k.recv, count, k.dt, k.op, comm, MPI_INFO_NULL, &req);
        break;
      case Routine::reduce_scatter:
        rc = MPI_Reduce_scatter_init(k.send, k.recv, counts.data(), k.dt, k.op, comm, MPI_INFO_NULL, &req);
        break;
      case Routine::reduce_scatter_block:
        rc = MPI_Reduce_scatter_block_init(k.send, k.recv, block, k.dt, k.op, comm, MPI_INFO_NULL, &req);
        break;
      case Routine::scan:
        rc = MPI_Scan_init(k.send, k.recv, count, k.dt, k.op, comm, MPI_INFO_NULL, &req);
        break;
      case Routine::exscan:
        rc = MPI_Exscan_init(k.send, k.recv, count, k.dt, k.op, comm, MPI_INFO_NULL, &req);
        break;
      default: break;
    }
    if (rc != MPI_SUCCESS) return rc;
    rc = MPI_Start(&req);
    if (rc == MPI_SUCCESS) rc = MPI_Wait(&req, MPI_STATUS_IGNORE);
    MPI_Request_free(&req);
    return rc;
#else
    *skip = std::string(ref::mpi_routine_name(c.routine, c.mode)) +
            " is not provided by this library (MPI-4 persistent collectives)";
    return MPI_SUCCESS;
#endif
  }
  return MPI_ERR_OTHER;
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

LocalVerdict judge(const ref::Case& c, const ZooComm& z, const ref::RankPlan& plan, int rc,
                   const std::optional<GuardedBuffer>& send, const std::vector<std::byte>& send_before,
                   const std::optional<GuardedBuffer>& recv, std::ptrdiff_t send_origin) {
  const std::string routine(ref::mpi_routine_name(c.routine, c.mode));
  if (rc != MPI_SUCCESS) return fail(routine + " returned " + error_string(rc) + " (" + where(z) + ")");
  if (unknown_datatype_calls() > 0)
    return fail("the user function was called with a datatype handle other than the one passed to " +
                routine + " (" + std::to_string(unknown_datatype_calls()) + " calls, " + where(z) + ")");
  if (send && send->raw() != send_before) {
    std::size_t i = 0;
    while (send->raw()[i] == send_before[i]) ++i;
    return fail("the send buffer was modified at byte " +
                std::to_string(static_cast<long>(i) - static_cast<long>(GuardedBuffer::kGuard) -
                               static_cast<long>(send_origin)) +
                " relative to its address (" + where(z) + ")");
  }
  if (recv && !recv->guards_intact())
    return fail("bytes outside the receive buffer were written (guard bytes changed, " + where(z) + ")");
  if (!recv || !plan.recv_significant || !plan.result_defined || !plan.recv_expected) return {};
  ref::Buffer expected = *plan.recv_expected;
  ref::Buffer observed = recv->contents(expected);
  const int m = plan.recv_compare_elements;
  if (m < expected.count()) ref::copy_elements(observed, m, expected, m, expected.count() - m);
  const ref::Difference d = ref::first_difference(expected, observed);
  if (!d.any) return {};
  std::ostringstream o;
  if (d.in_hole) {
    o << "a hole of the receive datatype was written at byte " << d.byte << ": expected untouched "
      << d.expected << ", observed " << d.observed;
  } else {
    o << "element " << d.element << " (leaf " << d.leaf << ", byte " << d.byte << "): expected "
      << d.expected << ", observed " << d.observed;
    if (c.op == "witness.tracer") {
      const auto cells = ref::witness::read_cells(observed.element(d.element), observed.type());
      const auto want = ref::witness::read_cells(expected.element(d.element), expected.type());
      const std::size_t cell = static_cast<std::size_t>(d.leaf) / 4;
      o << "; tracer: " << ref::witness::explain_tracer(cells[cell], want[cell].v[0], want[cell].v[1]);
    }
  }
  o << " (" << where(z) << ")";
  return fail(o.str());
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

Outcome run_case(const ref::Case& c) {
  const bool local = c.routine == Routine::reduce_local || c.routine == Routine::reduce_locals;
  const ZooComm& z = zoo(local ? "self" : c.comm);
  if (!z.available)
    return record(c, {S::skip, "communicator shape " + c.comm + " needs more ranks"}, 0, 0);
  if (!z.member) return record(c, {S::absent, ""}, 0, 0);
  const int comm_size = z.topology.size_low + z.topology.size_high;

  ref::RankPlan plan;
  ref::Datatype dt = ref::Datatype::basic(ref::Basic::INT);
  try {
    dt = ref::Datatype::parse(c.datatype);
    plan = ref::plan(c, z.topology, z.role);
  } catch (const std::exception& e) {
    return record(c, fail(std::string("ordo: the case is not valid: ") + e.what()), 0, comm_size);
  }
  std::string why;
  MPI_Datatype mdt = mpi_datatype(dt, &why);
  if (mdt == MPI_DATATYPE_NULL) return record(c, {S::skip, why}, 0, comm_size);
  MPI_Op mop = mpi_op(c.op);

  std::optional<GuardedBuffer> send, recv, arg;
  const bool in_place_here = c.in_place && !plan.send_significant;
  std::optional<ref::Buffer> dummy_send;
  if (plan.send) {
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
  const std::vector<std::byte> send_before = send ? send->raw() : std::vector<std::byte>{};
  void* sb = send ? send->ptr() : (in_place_here ? MPI_IN_PLACE : nullptr);
  void* rb = recv ? recv->ptr() : nullptr;

  reset_unknown_datatype_calls();
  reset_recorded_calls();
  std::string skip;
  const double t0 = MPI_Wtime();
  const int rc = invoke(Call{c, z, plan, mdt, mop, sb, rb, arg ? arg->ptr() : nullptr}, &skip);
  const double seconds = MPI_Wtime() - t0;
  if (!skip.empty()) return record(c, {S::skip, skip}, seconds, comm_size);
  const std::ptrdiff_t send_origin =
      plan.send ? plan.send->origin() : (dummy_send ? dummy_send->origin() : 0);
  return record(c, judge(c, z, plan, rc, send, send_before, recv, send_origin), seconds, comm_size);
}

}  // namespace ordo::harness
